! The analytic model behind the EOS table, its file layout and its checksum.
!
! File (stream, native byte order): magic 'EOSTAB01', nrho, ntemp (int32), lrho0, dlrho,
! lt0, dlt (real64), checksum (real64), then the table: real64 tab(nrho, ntemp, 3) with
! quantity 1 = log10 pressure, 2 = specific energy, 3 = sound speed.
module eos_model
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  character(len=8), parameter :: table_magic = 'EOSTAB01'
  real(dp), parameter :: lrho0 = -4.0_dp, lrho1 = 4.0_dp, lt0 = 3.0_dp, lt1 = 9.0_dp
contains
  pure function eos_exact(q, lrho, lt) result(v)
    integer, intent(in) :: q
    real(dp), intent(in) :: lrho, lt
    real(dp) :: v
    select case (q)
    case (1)
      v = lrho + lt + 0.1_dp * sin(3.0_dp * lrho) * cos(2.0_dp * lt)
    case (2)
      v = 1.5_dp * lt + 0.05_dp * lrho**2
    case default
      v = 0.5_dp * (lt - 0.2_dp * lrho)
    end select
  end function eos_exact

  pure function table_checksum(tab) result(s)
    real(dp), intent(in) :: tab(:, :, :)
    real(dp) :: s
    integer :: i, j, q
    s = 0
    do q = 1, size(tab, 3)
      do j = 1, size(tab, 2)
        do i = 1, size(tab, 1)
          s = s + tab(i, j, q) * real(mod(i * 7 + j * 13 + q * 31, 101) + 1, dp)
        end do
      end do
    end do
  end function table_checksum
end module eos_model
