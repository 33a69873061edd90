! Every rank reads the whole EOS table (stream access), checks its header and checksum, and
! evaluates pressure, energy and sound speed for its zones by bilinear interpolation; the
! interpolated values are checked against the analytic model.
!
! usage: eos_lookup TABLE ZONES
program eos_lookup
  use mpi
  use eos_model
  implicit none
  character(len=4096) :: path, arg
  character(len=8) :: magic
  character(len=256) :: msg
  integer :: ierr, rank, nprocs, u, ios, zones, z, q, i, j
  integer(4) :: nrho, ntemp
  real(dp) :: lr0, dlr, lt0f, dlt, stored_sum, lr, lt, fx, fy, v, err, maxerr(3), allerr(3), t0, t1
  real(dp), allocatable :: tab(:, :, :)
  integer :: seed_size
  integer, allocatable :: seed(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, path)
  call get_command_argument(2, arg)
  read (arg, *) zones
  t0 = MPI_Wtime()

  open (newunit=u, file=trim(path), access='stream', form='unformatted', status='old', action='read', &
        iostat=ios, iomsg=msg)
  if (ios /= 0) call fail('cannot open '//trim(path)//': '//trim(msg))
  read (u, iostat=ios, iomsg=msg) magic, nrho, ntemp, lr0, dlr, lt0f, dlt, stored_sum
  if (ios /= 0) call fail('cannot read the header of '//trim(path)//': '//trim(msg))
  if (magic /= table_magic .or. nrho < 2 .or. ntemp < 2) call fail(trim(path)//' is not an EOS table')
  allocate (tab(nrho, ntemp, 3))
  read (u, iostat=ios, iomsg=msg) tab
  if (ios /= 0) call fail('cannot read the table in '//trim(path)//': '//trim(msg))
  close (u)
  if (table_checksum(tab) /= stored_sum) call fail(trim(path)//': checksum mismatch')
  t1 = MPI_Wtime()

  call random_seed(size=seed_size)
  allocate (seed(seed_size))
  seed = 12345 + 977 * rank
  call random_seed(put=seed)
  maxerr = 0
  do z = 1, zones
    call random_number(fx)
    call random_number(fy)
    lr = lr0 + fx * (nrho - 1) * dlr * 0.999_dp
    lt = lt0f + fy * (ntemp - 1) * dlt * 0.999_dp
    i = int((lr - lr0) / dlr) + 1
    j = int((lt - lt0f) / dlt) + 1
    fx = (lr - (lr0 + (i - 1) * dlr)) / dlr
    fy = (lt - (lt0f + (j - 1) * dlt)) / dlt
    do q = 1, 3
      v = (1 - fx) * (1 - fy) * tab(i, j, q) + fx * (1 - fy) * tab(i + 1, j, q) + &
          (1 - fx) * fy * tab(i, j + 1, q) + fx * fy * tab(i + 1, j + 1, q)
      err = abs(v - eos_exact(q, lr, lt))
      maxerr(q) = max(maxerr(q), err)
    end do
  end do
  call MPI_Allreduce(maxerr, allerr, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,f6.3,a,3es10.2)') 'eos_lookup: ', nprocs, ' ranks loaded the ', nrho, 'x', ntemp, &
      ' table in ', t1 - t0, ' s; max interpolation errors', allerr
  end if
  if (any(allerr > 1.0e-3_dp)) then
    if (rank == 0) write (*, '(a)') 'eos_lookup: interpolation errors too large: the table is wrong'
    call MPI_Finalize(ierr)
    error stop 1
  end if
  call MPI_Finalize(ierr)

contains
  subroutine fail(why)
    character(len=*), intent(in) :: why
    write (0, '(a,i0,a,a)') 'eos_lookup[', rank, ']: ', why
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail
end program eos_lookup
