! Independent MPI-IO on one shared file: every rank writes its records with explicit
! offsets (MPI_File_write_at), interleaved with the other ranks' records (record k of rank r
! at (k*nprocs + r) * reclen). The file is closed, reopened read-only, and each rank reads
! back the records of the next rank with MPI_File_read_at and checks them.
!
! usage: records DIR NREC RECLEN_KIB
program records
  use mpi
  implicit none
  integer, parameter :: i8 = selected_int_kind(18)
  character(len=512) :: dir, arg, fname
  integer :: rank, nprocs, ierr, fh, info, nrec, reclen, nwords, k, w, other, bad, allbad
  integer(kind=MPI_OFFSET_KIND) :: offset
  integer(i8), allocatable :: rec(:)
  integer :: status(MPI_STATUS_SIZE)
  logical :: here, everywhere
  double precision :: t0, t1, t2

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, dir)
  call get_command_argument(2, arg)
  read (arg, *) nrec
  call get_command_argument(3, arg)
  read (arg, *) reclen
  reclen = reclen * 1024
  nwords = reclen / 8
  allocate (rec(nwords))
  fname = trim(dir)//'/records.dat'

  ! A rank that cannot see the directory would leave the others waiting in the collective open.
  inquire (file=trim(dir)//'/.', exist=here)
  call MPI_Allreduce(here, everywhere, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (.not. everywhere) then
    if (.not. here) write (0, '(a,i0,2a)') 'records[', rank, ']: no directory ', trim(dir)
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if

  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'access_style', 'write_once,random', ierr)
  call MPI_Info_set(info, 'romio_ds_write', 'disable', ierr)
  call MPI_Info_set(info, 'romio_ds_read', 'disable', ierr)
  call MPI_File_open(MPI_COMM_WORLD, fname, ior(MPI_MODE_CREATE, MPI_MODE_RDWR), info, fh, ierr)
  call check(ierr, 'MPI_File_open')

  t0 = MPI_Wtime()
  do k = 0, nrec - 1
    do w = 1, nwords
      rec(w) = pattern(rank, k, w)
    end do
    offset = (int(k, MPI_OFFSET_KIND) * nprocs + rank) * reclen
    call MPI_File_write_at(fh, offset, rec, nwords, MPI_INTEGER8, status, ierr)
    call check(ierr, 'MPI_File_write_at')
  end do
  call MPI_File_close(fh, ierr)
  call check(ierr, 'MPI_File_close')
  t1 = MPI_Wtime()

  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY, info, fh, ierr)
  call check(ierr, 'MPI_File_open (read)')

  other = mod(rank + 1, nprocs)
  bad = 0
  do k = 0, nrec - 1
    offset = (int(k, MPI_OFFSET_KIND) * nprocs + other) * reclen
    call MPI_File_read_at(fh, offset, rec, nwords, MPI_INTEGER8, status, ierr)
    call check(ierr, 'MPI_File_read_at')
    do w = 1, nwords
      if (rec(w) /= pattern(other, k, w)) bad = bad + 1
    end do
  end do
  t2 = MPI_Wtime()
  call MPI_File_close(fh, ierr)
  call MPI_Info_free(info, ierr)
  call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a,i0,a,f7.3,a,f7.3,a,i0)') 'records: ', nprocs, ' ranks x ', nrec, &
                                                        ' records, write ', t1 - t0, ' s, read ', t2 - t1, ' s, bad ', allbad
  call MPI_Finalize(ierr)
  if (allbad /= 0) error stop 1

contains

  integer(i8) function pattern(r, k, w)
    integer, intent(in) :: r, k, w
    pattern = int(r, i8) * 1000000000_i8 + int(k, i8) * 100000_i8 + w
  end function pattern

  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    integer :: e
    if (code /= MPI_SUCCESS) then
      write (0, '(a,i0,3a,i0)') 'records[', rank, ']: ', what, ' failed: ', code
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check

end program records
