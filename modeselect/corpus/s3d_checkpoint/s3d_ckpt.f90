! S3D-like checkpoint burst: every rank advances its 32^3 block of 16 variables (11
! species, temperature, pressure, 3 velocity components) and dumps it to a file of its own
! every step, as S3D's savefile does (one file per rank and time step). The last dump is read
! back and compared before the run ends.
!
! usage: s3d_ckpt DATADIR NSTEPS
program s3d_ckpt
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nx = 32, ny = 32, nz = 32, nvar = 16
  real(dp), allocatable :: q(:,:,:,:), back(:,:,:,:)
  character(len=512) :: datadir, arg, fname
  integer :: rank, nprocs, ierr, nsteps, step, u, ios, hdr(5)
  real(dp) :: t0, t1

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (command_argument_count() /= 2) then
    if (rank == 0) print *, 'usage: s3d_ckpt DATADIR NSTEPS'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, datadir)
  call get_command_argument(2, arg)
  read (arg, *) nsteps

  allocate (q(nx, ny, nz, nvar), back(nx, ny, nz, nvar))
  call initialize(q, rank)
  t0 = MPI_Wtime()
  do step = 1, nsteps
    call advance(q, step)
    ! field.<step>.<rank>, e.g. data/field.0003.00007
    write (fname, '(a,"/field.",i4.4,".",i5.5)') trim(datadir), step, rank
    open (newunit=u, file=trim(fname), access='stream', form='unformatted', status='replace', &
          action='write', iostat=ios)
    if (ios /= 0) call fail('cannot create '//trim(fname))
    write (u, iostat=ios) nx, ny, nz, nvar, step
    write (u, iostat=ios) q
    if (ios /= 0) call fail('cannot write '//trim(fname))
    close (u)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t1 = MPI_Wtime()

  ! Read the last dump back and compare it with the state in memory.
  open (newunit=u, file=trim(fname), access='stream', form='unformatted', status='old', &
        action='read', iostat=ios)
  if (ios /= 0) call fail('cannot open '//trim(fname))
  read (u, iostat=ios) hdr
  read (u, iostat=ios) back
  if (ios /= 0) call fail('cannot read '//trim(fname))
  close (u)
  if (any(hdr /= [nx, ny, nz, nvar, nsteps]) .or. any(back /= q)) call fail(trim(fname)//' differs')

  if (rank == 0) write (*, '(a,i0,a,i0,a,f8.3,a)') 's3d_ckpt: ', nsteps, ' dumps of ', nprocs, &
                                                  ' ranks in ', t1 - t0, ' s'
  call MPI_Finalize(ierr)

contains

  subroutine initialize(q, rank)
    real(dp), intent(out) :: q(:,:,:,:)
    integer, intent(in) :: rank
    integer :: i, j, k, v
    do v = 1, nvar
      do k = 1, nz
        do j = 1, ny
          do i = 1, nx
            q(i, j, k, v) = real(rank, dp) + 0.01_dp * v + 1.0e-4_dp * (i + j + k)
          end do
        end do
      end do
    end do
  end subroutine initialize

  subroutine advance(q, step)
    real(dp), intent(inout) :: q(:,:,:,:)
    integer, intent(in) :: step
    q = q * 0.999_dp + 1.0e-3_dp * step
  end subroutine advance

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    integer :: ierr
    write (0, '(a,i0,a,a)') 's3d_ckpt[', rank, ']: ', msg
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail

end program s3d_ckpt
