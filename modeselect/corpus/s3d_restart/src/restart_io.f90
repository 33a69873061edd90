! Restart file I/O of the S3D-like solver: one unformatted stream file per rank,
! <dir>/restart.<rank>, a header (grid, variables, step, writer rank) then the state.
module restart_io
  implicit none
  private
  public :: restart_name, write_restart, read_restart
  integer, parameter :: dp = kind(1.0d0)

contains

  function restart_name(dir, rank) result(fname)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: rank
    character(len=512) :: fname
    write (fname, '(2a,i6.6)') trim(dir), '/restart.', rank
  end function restart_name

  subroutine write_restart(dir, rank, step, q, ios)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: rank, step
    real(dp), intent(in) :: q(:,:,:,:)
    integer, intent(out) :: ios
    integer :: u
    open (newunit=u, file=trim(restart_name(dir, rank)), access='stream', form='unformatted', &
          status='replace', action='write', iostat=ios)
    if (ios /= 0) return
    write (u, iostat=ios) shape(q), step, rank
    if (ios == 0) write (u, iostat=ios) q
    close (u)
  end subroutine write_restart

  subroutine read_restart(dir, rank, step, q, ios)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: rank
    integer, intent(out) :: step, ios
    real(dp), intent(out) :: q(:,:,:,:)
    integer :: u, hdr(6)
    open (newunit=u, file=trim(restart_name(dir, rank)), access='stream', form='unformatted', &
          status='old', action='read', iostat=ios)
    if (ios /= 0) return
    read (u, iostat=ios) hdr
    if (ios == 0 .and. (any(hdr(1:4) /= shape(q)) .or. hdr(6) /= rank)) ios = -100
    if (ios == 0) read (u, iostat=ios) q
    step = hdr(5)
    close (u)
  end subroutine read_restart

end module restart_io
