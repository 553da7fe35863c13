! The many-image patterns of the caf-native engine: which images an image runs the statements to,
! and which slot of a target's coarray each source writes. The same rules and numbers as
! src/algorithms/coarray/pattern.hpp (Traffic), which the other engines run; change both together.
! Images are 1-based here.
module collsim_caf_pattern
  use, intrinsic :: iso_c_binding, only: c_int32_t
  implicit none
  private
  public :: pattern_one, pattern_all_to_one, pattern_ring, pattern_halo
  public :: targets_of, sources_of, slots_of

  integer, parameter :: pattern_one = 0, pattern_all_to_one = 1, pattern_ring = 2, pattern_halo = 3

contains

  ! The images `me` runs the statements to, in order (halo: left, then right); n of them.
  subroutine targets_of(pattern, origin, target, images, me, list, n)
    integer(c_int32_t), intent(in) :: pattern, origin, target
    integer, intent(in) :: images, me
    integer, intent(out) :: list(2), n
    n = 0
    list = 0
    select case (pattern)
    case (pattern_all_to_one)
      if (me /= 1) call push(list, n, 1)
    case (pattern_ring)
      call push(list, n, modulo(me, images) + 1)
    case (pattern_halo)
      call neighbours(list, n, me, images)
    case default
      if (me == origin) call push(list, n, int(target))
    end select
  end subroutine targets_of

  ! The images that run the statements to `me`, in slot order; n of them (at most images - 1).
  subroutine sources_of(pattern, origin, target, images, me, list, n)
    integer(c_int32_t), intent(in) :: pattern, origin, target
    integer, intent(in) :: images, me
    integer, intent(out) :: list(:), n
    integer :: i
    n = 0
    list = 0
    select case (pattern)
    case (pattern_all_to_one)
      if (me == 1) then
        do i = 2, images
          call push(list, n, i)
        end do
      end if
    case (pattern_ring)
      call push(list, n, modulo(me - 2, images) + 1)
    case (pattern_halo)
      ! The left neighbour's copies in slot 1, the right one's in slot 2, as ghost cells lie.
      call neighbours(list, n, me, images)
    case default
      if (me == target) call push(list, n, int(origin))
    end select
  end subroutine sources_of

  ! Halo's periodic neighbours of `me`: the left one, then the right one.
  subroutine neighbours(list, n, me, images)
    integer, intent(inout) :: list(:), n
    integer, intent(in) :: me, images
    call push(list, n, modulo(me - 2, images) + 1)
    call push(list, n, modulo(me, images) + 1)
  end subroutine neighbours

  subroutine push(list, n, image)
    integer, intent(inout) :: list(:), n
    integer, intent(in) :: image
    n = n + 1
    list(n) = image
  end subroutine push

  ! Slots per statement in every image's coarray: the most sources any image has.
  integer function slots_of(pattern, images)
    integer(c_int32_t), intent(in) :: pattern
    integer, intent(in) :: images
    select case (pattern)
    case (pattern_all_to_one)
      slots_of = images - 1
    case (pattern_halo)
      slots_of = 2
    case default
      slots_of = 1
    end select
  end function slots_of
end module collsim_caf_pattern
