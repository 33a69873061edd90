! Probe time series of a flow solver: every rank integrates a damped oscillator field of its
! own (NX points) and, every step, appends the probe record (unformatted sequential) to
! series.bin and one formatted line to stats.txt in its own directory run/rank_NNNN, which it
! makes itself (mkdir -p). At the end each rank reads its series back, checks every record
! against the values it kept, compares the line count of stats.txt, and deletes its files.
!
! usage: timeseries RUN_DIR STEPS NX
program timeseries
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer :: ierr, rank, nranks, steps, nx, step, i, u, ios, nlines, bad
  character(len=512) :: run_dir, arg, dir, series, stats
  real(dp), allocatable :: field(:), vel(:), rec(:), kept(:, :)
  real(dp) :: t, e

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, run_dir)
  call get_command_argument(2, arg); read (arg, *) steps
  call get_command_argument(3, arg); read (arg, *) nx

  write (dir, '(a, "/rank_", i4.4)') trim(run_dir), rank
  series = trim(dir)//'/series.bin'
  stats = trim(dir)//'/stats.txt'
  call execute_command_line('mkdir -p '//trim(dir), exitstat=ios)
  if (ios /= 0) call fail('mkdir -p '//trim(dir))

  allocate (field(nx), vel(nx), rec(nx), kept(4, steps))
  do i = 1, nx
    field(i) = sin(0.001_dp*i*(rank + 1))
  end do
  vel = 0

  open (newunit=u, file=series, form='unformatted', access='sequential', status='replace', iostat=ios)
  if (ios /= 0) call fail('open '//trim(series))
  do step = 1, steps
    t = step*0.01_dp
    vel = vel - 0.01_dp*field - 0.001_dp*vel
    field = field + 0.01_dp*vel
    e = 0.5_dp*sum(vel**2 + field**2)
    write (u) step, t, field
    kept(:, step) = [t, e, field(1), field(nx)]
    call append_stats(step, t, e)
  end do
  close (u)

  ! read back and check
  bad = 0
  open (newunit=u, file=series, form='unformatted', access='sequential', status='old', iostat=ios)
  if (ios /= 0) call fail('reopen '//trim(series))
  do step = 1, steps
    read (u, iostat=ios) i, t, rec
    if (ios /= 0 .or. i /= step .or. t /= kept(1, step) .or. rec(1) /= kept(3, step) &
        .or. rec(nx) /= kept(4, step)) bad = bad + 1
  end do
  close (u, status='delete')
  nlines = 0
  open (newunit=u, file=stats, status='old', action='read', iostat=ios)
  if (ios /= 0) call fail('open '//trim(stats))
  do
    read (u, '(a)', iostat=ios) arg
    if (ios /= 0) exit
    nlines = nlines + 1
  end do
  close (u, status='delete')
  call execute_command_line('rmdir '//trim(dir), exitstat=ios)
  if (nlines /= steps) bad = bad + 1
  if (bad /= 0) then
    write (*, '("rank ", i0, ": ", i0, " bad records, ", i0, " stats lines")') rank, bad, nlines
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '("timeseries: ", i0, " ranks x ", i0, " steps of ", i0, " points checked")') &
    nranks, steps, nx
  call MPI_Finalize(ierr)

contains

  ! One line per step, the file reopened in append mode each time (as a monitor would).
  subroutine append_stats(step, t, e)
    integer, intent(in) :: step
    real(dp), intent(in) :: t, e
    integer :: v, ios2
    open (newunit=v, file=stats, position='append', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('append '//trim(stats))
    write (v, '(i6, 2es24.15)') step, t, e
    close (v)
  end subroutine

  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: ierr2
    write (0, '("timeseries rank ", i0, ": ", a, " failed")') rank, what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
  end subroutine
end program timeseries
