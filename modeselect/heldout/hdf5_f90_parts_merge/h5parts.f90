! Ocean model output as one HDF5 file per rank, merged afterwards: `write` has every rank
! write its subdomain (temperature and salinity, NY x NX_LOCAL, and the column offset as an
! attribute) to DIR/part_NNNN.h5 with the serial HDF5 interface; `merge`, a later job step on
! one task, opens every part, reads both fields, checks them, and writes the assembled global
! fields to DIR/ocean.h5, which it reads back and checks.
!
! usage: h5parts write|merge DIR NX_LOCAL NY
program h5parts
  use hdf5
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  character(len=512) :: cmd, dir, arg, path
  integer :: nxl, ny, rank, nranks, ierr, hdferr, r, nparts, bad
  real(dp), allocatable :: t(:, :), s(:, :), gt(:, :), gs(:, :)
  integer(hid_t) :: file, space, attr, aspace
  integer(hsize_t) :: dims(2), adims(1)
  integer :: offset(1)
  logical :: exists

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, cmd)
  call get_command_argument(2, dir)
  call get_command_argument(3, arg); read (arg, *) nxl
  call get_command_argument(4, arg); read (arg, *) ny
  call h5open_f(hdferr)
  dims = [integer(hsize_t) :: ny, nxl]
  adims = [integer(hsize_t) :: 1]
  allocate (t(ny, nxl), s(ny, nxl))
  bad = 0

  if (trim(cmd) == 'write') then
    call fields(rank*nxl, t, s)
    write (path, '(a, "/part_", i4.4, ".h5")') trim(dir), rank
    call h5fcreate_f(trim(path), H5F_ACC_TRUNC_F, file, hdferr)
    call check(hdferr, 'create '//trim(path))
    call h5screate_simple_f(2, dims, space, hdferr)
    call put(file, 'temperature', t)
    call put(file, 'salinity', s)
    call h5screate_simple_f(1, adims, aspace, hdferr)
    call h5acreate_f(file, 'column_offset', H5T_NATIVE_INTEGER, aspace, attr, hdferr)
    offset(1) = rank*nxl
    call h5awrite_f(attr, H5T_NATIVE_INTEGER, offset, adims, hdferr)
    call h5aclose_f(attr, hdferr)
    call h5sclose_f(aspace, hdferr)
    call h5sclose_f(space, hdferr)
    call h5fclose_f(file, hdferr)
  else
    ! merge: count the parts, read them all, assemble, write and check the global file
    nparts = 0
    do
      write (path, '(a, "/part_", i4.4, ".h5")') trim(dir), nparts
      inquire (file=trim(path), exist=exists)
      if (.not. exists) exit
      nparts = nparts + 1
    end do
    allocate (gt(ny, nxl*nparts), gs(ny, nxl*nparts))
    do r = 0, nparts - 1
      write (path, '(a, "/part_", i4.4, ".h5")') trim(dir), r
      call h5fopen_f(trim(path), H5F_ACC_RDONLY_F, file, hdferr)
      call check(hdferr, 'open '//trim(path))
      call get(file, 'temperature', gt(:, r*nxl + 1:(r + 1)*nxl))
      call get(file, 'salinity', gs(:, r*nxl + 1:(r + 1)*nxl))
      call h5aopen_f(file, 'column_offset', attr, hdferr)
      call h5aread_f(attr, H5T_NATIVE_INTEGER, offset, adims, hdferr)
      call h5aclose_f(attr, hdferr)
      call h5fclose_f(file, hdferr)
      call fields(r*nxl, t, s)
      if (offset(1) /= r*nxl .or. any(gt(:, r*nxl + 1:(r + 1)*nxl) /= t) .or. &
          any(gs(:, r*nxl + 1:(r + 1)*nxl) /= s)) bad = bad + 1
    end do
    dims = [integer(hsize_t) :: ny, nxl*nparts]
    path = trim(dir)//'/ocean.h5'
    call h5fcreate_f(trim(path), H5F_ACC_TRUNC_F, file, hdferr)
    call check(hdferr, 'create '//trim(path))
    call h5screate_simple_f(2, dims, space, hdferr)
    call put(file, 'temperature', gt)
    call put(file, 'salinity', gs)
    call h5sclose_f(space, hdferr)
    call h5fclose_f(file, hdferr)
    call h5fopen_f(trim(path), H5F_ACC_RDONLY_F, file, hdferr)
    t = gt(:, 1:nxl)
    deallocate (gt)
    allocate (gt(ny, nxl*nparts))
    call get(file, 'temperature', gt)
    call h5fclose_f(file, hdferr)
    if (any(gt(:, 1:nxl) /= t) .or. nparts < 1) bad = bad + 1
    write (*, '("h5parts: merged ", i0, " parts into ", i0, " x ", i0, " fields, ", i0, " bad")') &
      nparts, ny, nxl*nparts, bad
  end if
  call h5close_f(hdferr)
  if (bad /= 0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine fields(col0, tt, ss)
    integer, intent(in) :: col0
    real(dp), intent(out) :: tt(:, :), ss(:, :)
    integer :: i, j
    do j = 1, size(tt, 2)
      do i = 1, size(tt, 1)
        tt(i, j) = 15.0_dp + 10.0_dp*cos(0.01_dp*i) + 0.001_dp*(col0 + j)
        ss(i, j) = 35.0_dp + 0.5_dp*sin(0.02_dp*(col0 + j))
      end do
    end do
  end subroutine

  subroutine put(f, name, a)
    integer(hid_t), intent(in) :: f
    character(len=*), intent(in) :: name
    real(dp), intent(in) :: a(:, :)
    integer(hid_t) :: d
    call h5dcreate_f(f, name, H5T_NATIVE_DOUBLE, space, d, hdferr)
    call check(hdferr, 'dcreate '//name)
    call h5dwrite_f(d, H5T_NATIVE_DOUBLE, a, dims, hdferr)
    call check(hdferr, 'dwrite '//name)
    call h5dclose_f(d, hdferr)
  end subroutine

  subroutine get(f, name, a)
    integer(hid_t), intent(in) :: f
    character(len=*), intent(in) :: name
    real(dp), intent(out) :: a(:, :)
    integer(hid_t) :: d
    integer(hsize_t) :: sdims(2)
    sdims = shape(a, kind=hsize_t)
    call h5dopen_f(f, name, d, hdferr)
    call check(hdferr, 'dopen '//name)
    call h5dread_f(d, H5T_NATIVE_DOUBLE, a, sdims, hdferr)
    call check(hdferr, 'dread '//name)
    call h5dclose_f(d, hdferr)
  end subroutine

  subroutine check(err, what)
    integer, intent(in) :: err
    character(len=*), intent(in) :: what
    if (err < 0) then
      write (0, '("h5parts rank ", i0, ": ", a, " failed")') rank, what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end program h5parts
