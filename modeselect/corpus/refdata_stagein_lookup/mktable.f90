! Builds the EOS table: mktable FILE NRHO NTEMP
program mktable
  use eos_model
  implicit none
  character(len=4096) :: path, arg
  integer :: nrho, ntemp, i, j, q, u, ios
  real(dp) :: dlrho, dlt
  real(dp), allocatable :: tab(:, :, :)

  call get_command_argument(1, path)
  call get_command_argument(2, arg); read (arg, *) nrho
  call get_command_argument(3, arg); read (arg, *) ntemp
  dlrho = (lrho1 - lrho0) / (nrho - 1)
  dlt = (lt1 - lt0) / (ntemp - 1)
  allocate (tab(nrho, ntemp, 3))
  do q = 1, 3
    do j = 1, ntemp
      do i = 1, nrho
        tab(i, j, q) = eos_exact(q, lrho0 + (i - 1) * dlrho, lt0 + (j - 1) * dlt)
      end do
    end do
  end do
  open (newunit=u, file=trim(path), access='stream', form='unformatted', status='replace', action='write', iostat=ios)
  if (ios /= 0) stop 'mktable: cannot create the table'
  write (u) table_magic, int(nrho, 4), int(ntemp, 4), lrho0, dlrho, lt0, dlt, table_checksum(tab)
  write (u) tab
  close (u)
end program mktable
