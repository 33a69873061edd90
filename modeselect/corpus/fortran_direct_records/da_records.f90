! Unformatted direct-access output shared by all ranks.
!
! The record length comes from INQUIRE(IOLENGTH=) of one record (a header of 4 integers and
! WORDS reals), so it is right whatever unit RECL counts in. Every rank opens the same file
! and writes its record of each step at REC = step*nranks + rank + 1; after a barrier the
! file is reopened read-only and each rank reads and checks all records of rank+1; rank 0
! checks the file's size.
!
! usage: da_records FILE STEPS WORDS
program da_records
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  character(len=4096) :: path, arg
  character(len=256) :: msg
  integer :: ierr, rank, nprocs, steps, words, reclen, u, ios, s, i, other, bad, allbad
  integer(4) :: hdr(4)
  real(dp), allocatable :: vals(:)
  integer(8) :: fsize, want
  real(dp) :: t0, t1, t2

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (command_argument_count() /= 3) then
    if (rank == 0) write (0, '(a)') 'usage: da_records FILE STEPS WORDS'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, path)
  call get_command_argument(2, arg); read (arg, *) steps
  call get_command_argument(3, arg); read (arg, *) words
  allocate (vals(words))
  inquire (iolength=reclen) hdr, vals

  t0 = MPI_Wtime()
  open (newunit=u, file=trim(path), access='direct', form='unformatted', recl=reclen, status='unknown', &
        action='readwrite', iostat=ios, iomsg=msg)
  if (ios /= 0) call fail('cannot open '//trim(path)//': '//trim(msg))
  do s = 0, steps - 1
    hdr = [int(rank, 4), int(s, 4), int(words, 4), int(z'5AFE', 4)]
    do i = 1, words
      vals(i) = value(rank, s, i)
    end do
    write (u, rec=s * nprocs + rank + 1, iostat=ios, iomsg=msg) hdr, vals
    if (ios /= 0) call fail('cannot write a record: '//trim(msg))
  end do
  close (u, iostat=ios)
  if (ios /= 0) call fail('cannot close '//trim(path))
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t1 = MPI_Wtime()

  ! Read back the next rank's records.
  other = mod(rank + 1, nprocs)
  bad = 0
  open (newunit=u, file=trim(path), access='direct', form='unformatted', recl=reclen, status='old', &
        action='read', iostat=ios, iomsg=msg)
  if (ios /= 0) call fail('cannot reopen '//trim(path)//': '//trim(msg))
  do s = 0, steps - 1
    read (u, rec=s * nprocs + other + 1, iostat=ios, iomsg=msg) hdr, vals
    if (ios /= 0) call fail('cannot read the record of rank '//itoa(other)//' step '//itoa(s)//': '//trim(msg))
    if (hdr(1) /= other .or. hdr(2) /= s .or. hdr(3) /= words .or. hdr(4) /= int(z'5AFE', 4)) then
      bad = bad + 1
      cycle
    end if
    do i = 1, words
      if (vals(i) /= value(other, s, i)) bad = bad + 1
    end do
  end do
  close (u)
  if (rank == 0) then
    inquire (file=trim(path), size=fsize)
    want = int(nprocs, 8) * steps * (16 + 8 * int(words, 8))
    if (fsize /= want) then
      write (0, '(a,i0,a,i0)') 'da_records: file size ', fsize, ', expected ', want
      bad = bad + 1
    end if
  end if
  call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  t2 = MPI_Wtime()
  if (rank == 0) write (*, '(a,i0,a,i0,a,i0,a,f6.3,a,f6.3,a,i0)') 'da_records: ', nprocs * steps, ' records of ', &
    16 + 8 * words, ' bytes by ', nprocs, ' ranks, write ', t1 - t0, ' s, read-back ', t2 - t1, ' s, bad ', allbad
  call MPI_Finalize(ierr)
  if (allbad /= 0) error stop 1

contains
  pure function value(r, s, i) result(v)
    integer, intent(in) :: r, s, i
    real(dp) :: v
    v = r * 1.0e6_dp + s * 1.0e3_dp + i * 0.5_dp
  end function value

  function itoa(n) result(str)
    integer, intent(in) :: n
    character(len=:), allocatable :: str
    character(len=16) :: buf
    write (buf, '(i0)') n
    str = trim(buf)
  end function itoa

  subroutine fail(why)
    character(len=*), intent(in) :: why
    write (0, '(a,i0,a,a)') 'da_records[', rank, ']: ', why
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail
end program da_records
