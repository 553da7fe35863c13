! The Fortran side of the caf-native engine: real coarray section assignments, compiled with
! gfortran -fcoarray=lib and run by OpenCoarrays, behind a few bind(C) entry points for the C++
! driver (caf_call.hpp). One module per element type holds that type's coarrays; the entry
! points pick the module by element size.
!
! Every statement is rank 7 (plus the copy index, a scalar subscript that drops out of the
! section), so one statement text covers sections of rank 1 to 7 chosen at run time. The C++ side
! pads shorter sections with LEADING dimensions of extent 1: OpenCoarrays' contiguity test
! compares each stride with the product of the section's extents before it, so trailing padding
! after a partial dimension would make a contiguous section look strided and turn one MPI_Put
! into one per element.

! l(1):u(1):s(1), ..., l(7):u(7):s(7)
#define SECTION(l, u, s) l(1):u(1):s(1), l(2):u(2):s(2), l(3):u(3):s(3), l(4):u(4):s(4), l(5):u(5):s(5), l(6):u(6):s(6), l(7):u(7):s(7)

#define CAF_TYPE integer(c_int8_t)
#define CAF_VALUE(k) int(k, c_int8_t)
#define CAF_MODULUS 113
module collsim_caf_i1
  use, intrinsic :: iso_c_binding
  use collsim_caf_spec
  use collsim_caf_pattern
  implicit none
  private
  public :: setup, teardown, prepare, run, check
#include "caf_kernel.inc"
end module collsim_caf_i1
#undef CAF_TYPE
#undef CAF_VALUE
#undef CAF_MODULUS

#define CAF_TYPE integer(c_int16_t)
#define CAF_VALUE(k) int(k, c_int16_t)
#define CAF_MODULUS 32749
module collsim_caf_i2
  use, intrinsic :: iso_c_binding
  use collsim_caf_spec
  use collsim_caf_pattern
  implicit none
  private
  public :: setup, teardown, prepare, run, check
#include "caf_kernel.inc"
end module collsim_caf_i2
#undef CAF_TYPE
#undef CAF_VALUE
#undef CAF_MODULUS

#define CAF_TYPE integer(c_int32_t)
#define CAF_VALUE(k) int(k, c_int32_t)
#define CAF_MODULUS 2147483647
module collsim_caf_i4
  use, intrinsic :: iso_c_binding
  use collsim_caf_spec
  use collsim_caf_pattern
  implicit none
  private
  public :: setup, teardown, prepare, run, check
#include "caf_kernel.inc"
end module collsim_caf_i4
#undef CAF_TYPE
#undef CAF_VALUE
#undef CAF_MODULUS

#define CAF_TYPE real(c_double)
#define CAF_VALUE(k) real(k, c_double)
#define CAF_MODULUS 4503599627370496_c_int64_t
module collsim_caf_r8
  use, intrinsic :: iso_c_binding
  use collsim_caf_spec
  use collsim_caf_pattern
  implicit none
  private
  public :: setup, teardown, prepare, run, check
#include "caf_kernel.inc"
end module collsim_caf_r8
#undef CAF_TYPE
#undef CAF_VALUE
#undef CAF_MODULUS

! The imaginary part differs from the real part, so swapped halves show.
#define CAF_TYPE complex(c_double_complex)
#define CAF_VALUE(k) cmplx(k, 2 * k + 1, c_double_complex)
#define CAF_MODULUS 1125899906842624_c_int64_t
module collsim_caf_c16
  use, intrinsic :: iso_c_binding
  use collsim_caf_spec
  use collsim_caf_pattern
  implicit none
  private
  public :: setup, teardown, prepare, run, check
#include "caf_kernel.inc"
end module collsim_caf_c16
#undef CAF_TYPE
#undef CAF_VALUE
#undef CAF_MODULUS

! The entry points. The C++ side has checked the spec (element size among these five, sections
! inside their arrays and of one shape), so the default branches cannot be reached.
module collsim_caf_kernels
  use, intrinsic :: iso_c_binding
  use collsim_caf_spec
  use collsim_caf_pattern
  use collsim_caf_i1, only: i1_setup => setup, i1_teardown => teardown, i1_prepare => prepare, i1_run => run, &
                            i1_check => check
  use collsim_caf_i2, only: i2_setup => setup, i2_teardown => teardown, i2_prepare => prepare, i2_run => run, &
                            i2_check => check
  use collsim_caf_i4, only: i4_setup => setup, i4_teardown => teardown, i4_prepare => prepare, i4_run => run, &
                            i4_check => check
  use collsim_caf_r8, only: r8_setup => setup, r8_teardown => teardown, r8_prepare => prepare, r8_run => run, &
                            r8_check => check
  use collsim_caf_c16, only: c16_setup => setup, c16_teardown => teardown, c16_prepare => prepare, &
                             c16_run => run, c16_check => check
  implicit none
  private
  public :: collsim_caf_setup, collsim_caf_teardown, collsim_caf_prepare, collsim_caf_run, collsim_caf_check, &
            collsim_caf_this_image, collsim_caf_num_images

contains

  subroutine collsim_caf_setup(spec) bind(C, name="collsim_caf_setup")
    type(caf_spec), intent(in) :: spec
    select case (spec%element_bytes)
    case (1); call i1_setup(spec)
    case (2); call i2_setup(spec)
    case (4); call i4_setup(spec)
    case (8); call r8_setup(spec)
    case (16); call c16_setup(spec)
    case default; error stop "collsim_caf_setup: unsupported element size"
    end select
  end subroutine collsim_caf_setup

  subroutine collsim_caf_teardown(spec) bind(C, name="collsim_caf_teardown")
    type(caf_spec), intent(in) :: spec
    select case (spec%element_bytes)
    case (1); call i1_teardown()
    case (2); call i2_teardown()
    case (4); call i4_teardown()
    case (8); call r8_teardown()
    case (16); call c16_teardown()
    case default; error stop "collsim_caf_teardown: unsupported element size"
    end select
  end subroutine collsim_caf_teardown

  subroutine collsim_caf_prepare(spec) bind(C, name="collsim_caf_prepare")
    type(caf_spec), intent(in) :: spec
    select case (spec%element_bytes)
    case (1); call i1_prepare(spec)
    case (2); call i2_prepare(spec)
    case (4); call i4_prepare(spec)
    case (8); call r8_prepare(spec)
    case (16); call c16_prepare(spec)
    case default; error stop "collsim_caf_prepare: unsupported element size"
    end select
  end subroutine collsim_caf_prepare

  subroutine collsim_caf_run(spec) bind(C, name="collsim_caf_run")
    type(caf_spec), intent(in) :: spec
    select case (spec%element_bytes)
    case (1); call i1_run(spec)
    case (2); call i2_run(spec)
    case (4); call i4_run(spec)
    case (8); call r8_run(spec)
    case (16); call c16_run(spec)
    case default; error stop "collsim_caf_run: unsupported element size"
    end select
  end subroutine collsim_caf_run

  subroutine collsim_caf_check(spec, result) bind(C, name="collsim_caf_check")
    type(caf_spec), intent(in) :: spec
    type(caf_check), intent(inout) :: result
    select case (spec%element_bytes)
    case (1); call i1_check(spec, result)
    case (2); call i2_check(spec, result)
    case (4); call i4_check(spec, result)
    case (8); call r8_check(spec, result)
    case (16); call c16_check(spec, result)
    case default; error stop "collsim_caf_check: unsupported element size"
    end select
  end subroutine collsim_caf_check

  function collsim_caf_this_image() result(image) bind(C, name="collsim_caf_this_image")
    integer(c_int) :: image
    image = this_image()
  end function collsim_caf_this_image

  function collsim_caf_num_images() result(images) bind(C, name="collsim_caf_num_images")
    integer(c_int) :: images
    images = num_images()
  end function collsim_caf_num_images
end module collsim_caf_kernels
