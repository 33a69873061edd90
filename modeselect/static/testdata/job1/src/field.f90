module field_io
contains
  subroutine dump(rank, step)
    integer, intent(in) :: rank, step
    character(len=64) :: fname
    ! open(unit=9, file='comment.dat')
    write(fname, '(a,i4.4,a,i3.3,a)') 'field_', rank, '_', step, '.bin'
    open(unit=20, file=fname, form='unformatted', status='replace')
    write(20) step
    close(20)
  end subroutine dump
end module field_io

program field
  use mpi
  use field_io
  implicit none
  integer, parameter :: nsteps = 20
  integer :: rank, ierr, step
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do step = 1, nsteps
     call dump(rank, step)
  end do
  call MPI_Finalize(ierr)
end program field
