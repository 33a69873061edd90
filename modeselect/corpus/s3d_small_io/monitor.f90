! S3D-like small, latency-sensitive output: every step each rank appends one line of
! monitor data (local min/max temperature, heat release) to its own text file and flushes
! it so that a user can follow the run; rank 0 also logs the global extrema (after an
! MPI_Allreduce) to tracer.dat. At the end each rank re-reads its file and checks it.
!
! usage: monitor DIR NSTEPS
program monitor
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  character(len=512) :: dir, arg, mon_name, line
  integer :: rank, nprocs, ierr, nsteps, step, umon, utr, ios, nlines, got_step
  real(dp) :: tmin, tmax, hrr, gmin, gmax

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, dir)
  call get_command_argument(2, arg)
  read (arg, *) nsteps

  ! (all ranks used to open(newunit=u, file='monitor.txt', position='append') one common
  ! file; each rank now has its own)
  write (mon_name, '(a,a,i4.4,a)') trim(dir), '/monitor_', rank, '.txt'
  open (newunit=umon, file=mon_name, status='replace', action='write', iostat=ios)
  if (ios /= 0) call die('cannot open '//trim(mon_name))
  if (rank == 0) then
    open (newunit=utr, file=trim(dir)//'/tracer.dat', status='replace', action='write', iostat=ios)
    if (ios /= 0) call die('cannot open tracer.dat')
  end if

  do step = 1, nsteps
    tmin = 300.0_dp + rank + 0.1_dp * step
    tmax = 1800.0_dp + rank + 0.2_dp * step
    hrr = 1.0e6_dp * sin(0.01_dp * step + rank)
    write (umon, '(i6,3es16.8)') step, tmin, tmax, hrr
    flush (umon)
    call MPI_Allreduce(tmin, gmin, 1, MPI_DOUBLE_PRECISION, MPI_MIN, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(tmax, gmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. mod(step, 10) == 0) then
      write (utr, '(i6,2es16.8)') step, gmin, gmax
      flush (utr)
    end if
  end do
  close (umon)
  if (rank == 0) close (utr)

  ! Check this rank's monitor file: one line per step, in order.
  open (newunit=umon, file=mon_name, status='old', action='read', iostat=ios)
  if (ios /= 0) call die('cannot reopen '//trim(mon_name))
  nlines = 0
  do
    read (umon, '(a)', iostat=ios) line
    if (ios /= 0) exit
    nlines = nlines + 1
    read (line, *) got_step
    if (got_step /= nlines) call die('monitor file out of order: '//trim(mon_name))
  end do
  close (umon)
  if (nlines /= nsteps) call die('monitor file incomplete: '//trim(mon_name))
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', 'monitor: ', nsteps, ' steps on ', nprocs, ' ranks checked'
  call MPI_Finalize(ierr)

contains

  subroutine die(msg)
    character(len=*), intent(in) :: msg
    write (0, '(a,i0,2a)') 'monitor[', rank, ']: ', msg
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine die

end program monitor
