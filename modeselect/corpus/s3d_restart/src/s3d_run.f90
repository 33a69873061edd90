! S3D-like run with restart: "s3d_run start DIR" advances the state from the initial
! condition and writes restart files; "s3d_run restart DIR" reads them back, checks the
! state against the one it recomputes and continues.
program s3d_run
  use mpi
  use restart_io
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 48, ny = 48, nz = 32, nvar = 14, nsteps = 5
  real(dp), allocatable :: q(:,:,:,:), expect(:,:,:,:)
  character(len=16) :: phase
  character(len=512) :: dir
  integer :: rank, nprocs, ierr, ios, step, bad, allbad

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, phase)
  call get_command_argument(2, dir)
  allocate (q(nx, ny, nz, nvar), expect(nx, ny, nz, nvar))

  select case (trim(phase))
  case ('start')
    call execute_command_line('mkdir -p '//trim(dir), exitstat=ios)
    if (ios /= 0) call fail('cannot create '//trim(dir), ios)
    call evolve(q, rank, nsteps)
    call write_restart(dir, rank, nsteps, q, ios)
    if (ios /= 0) call fail('cannot write '//trim(restart_name(dir, rank)), ios)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a,i0,a)', 's3d_run: ', nprocs, ' restart files written'
  case ('restart')
    call read_restart(dir, rank, step, q, ios)
    if (ios /= 0) call fail('cannot read '//trim(restart_name(dir, rank)), ios)
    call evolve(expect, rank, step)
    bad = count(q /= expect)
    call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (allbad /= 0) then
      if (rank == 0) print '(a,i0,a)', 's3d_run: ', allbad, ' values differ after restart'
      call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
    end if
    q = q * 0.999_dp
    if (rank == 0) print '(a,i0,a,i0)', 's3d_run: restarted ', nprocs, ' ranks at step ', step
  case default
    call fail('usage: s3d_run start|restart DIR', 2)
  end select
  call MPI_Finalize(ierr)

contains

  subroutine evolve(q, rank, steps)
    real(dp), intent(out) :: q(:,:,:,:)
    integer, intent(in) :: rank, steps
    integer :: i, s
    do i = 1, nvar
      q(:, :, :, i) = real(rank * 100 + i, dp)
    end do
    do s = 1, steps
      q = q * 0.99_dp + 0.5_dp
    end do
  end subroutine evolve

  subroutine fail(msg, code)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: code
    integer :: ierr
    write (0, '(a,i0,3a,i0,a)') 's3d_run[', rank, ']: ', msg, ' (', code, ')'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail

end program s3d_run
