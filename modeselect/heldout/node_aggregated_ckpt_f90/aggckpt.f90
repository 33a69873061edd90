! Node-aggregated checkpoint: the ranks of a node (communicator split from SLURM_NODEID) send
! their state to the node's first rank, which writes one stream file per node,
! DIR/node_NNN.ckpt, holding the pieces in local-rank order. `restart` runs with the ranks
! placed differently (the job script deals them round-robin): rank r finds its piece in the
! file of the node it ran on before (r / TASKS_PER_NODE, block placement) at offset
! (r mod TASKS_PER_NODE) x piece size, reads it with a positioned stream read and checks it.
!
! usage: aggckpt write|restart DIR NVALUES TASKS_PER_NODE
program aggckpt
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  character(len=512) :: cmd, dir, arg, path
  integer :: n, tpn, ierr, rank, nranks, node, local, nlocal, nodecomm, u, ios, bad, i
  integer(kind=8) :: pos
  real(dp), allocatable :: mine(:), all(:), want(:)
  character(len=16) :: env

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, cmd)
  call get_command_argument(2, dir)
  call get_command_argument(3, arg); read (arg, *) n
  call get_command_argument(4, arg); read (arg, *) tpn
  call get_environment_variable('SLURM_NODEID', env)
  read (env, *) node
  allocate (mine(n), want(n))
  do i = 1, n
    want(i) = rank*1.0e6_dp + i + 0.25_dp
  end do
  bad = 0

  if (trim(cmd) == 'write') then
    call MPI_Comm_split(MPI_COMM_WORLD, node, rank, nodecomm, ierr)
    call MPI_Comm_rank(nodecomm, local, ierr)
    call MPI_Comm_size(nodecomm, nlocal, ierr)
    mine = want
    allocate (all(n*nlocal))
    call MPI_Gather(mine, n, MPI_DOUBLE_PRECISION, all, n, MPI_DOUBLE_PRECISION, 0, nodecomm, ierr)
    if (local == 0) then
      call execute_command_line('mkdir -p '//trim(dir))
      write (path, '(a, "/node_", i3.3, ".ckpt")') trim(dir), node
      open (newunit=u, file=trim(path), access='stream', form='unformatted', status='replace', iostat=ios)
      if (ios /= 0) call fail('open '//trim(path))
      write (u) all
      close (u)
    end if
    call MPI_Comm_free(nodecomm, ierr)
  else
    write (path, '(a, "/node_", i3.3, ".ckpt")') trim(dir), rank/tpn
    open (newunit=u, file=trim(path), access='stream', form='unformatted', status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('open '//trim(path))
    pos = int(mod(rank, tpn), 8)*int(n, 8)*8_8 + 1_8
    read (u, pos=pos, iostat=ios) mine
    close (u)
    if (ios /= 0) call fail('read '//trim(path))
    if (any(mine /= want)) bad = 1
    call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      write (*, '("aggckpt: ", i0, " ranks restarted from ", i0, " node files, ", i0, " bad pieces")') &
        nranks, nranks/tpn, bad
      call execute_command_line('rm -rf '//trim(dir))
    end if
    if (bad /= 0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write (0, '("aggckpt rank ", i0, ": ", a, " failed")') rank, what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program aggckpt
