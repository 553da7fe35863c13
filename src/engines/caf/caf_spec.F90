! The types that cross between the C++ driver and the Fortran coarray statements of the caf-native
! engine. They mirror CafSide, CafSpec and CafCheck in caf_call.hpp field for field (bind(C)
! guarantees the C layout); change both together.
module collsim_caf_spec
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_char
  implicit none
  private
  public :: caf_side, caf_spec, caf_check, caf_dims, caf_text_len

  ! Every section is written as one rank-7 statement; lower-rank sections come padded.
  integer, parameter :: caf_dims = 7
  integer, parameter :: caf_text_len = 48

  ! One side of the assignment: the array's extents (lower bounds 1) and the section's triplets.
  type, bind(C) :: caf_side
    integer(c_int64_t) :: extent(caf_dims)
    integer(c_int64_t) :: lower(caf_dims), upper(caf_dims), stride(caf_dims)
  end type caf_side

  type, bind(C) :: caf_spec
    type(caf_side) :: local, remote
    integer(c_int32_t) :: element_bytes  ! 1, 2, 4, 8 or 16
    integer(c_int32_t) :: copies         ! statements per segment, one per copy of the arrays
    integer(c_int32_t) :: get            ! 0: local section PUT into the remote one; 1: GET
    integer(c_int32_t) :: origin_image   ! the image that executes the statements
    integer(c_int32_t) :: target_image   ! the image in the coindex
    integer(c_int32_t) :: sync           ! the segment's end: 0 sync memory, 1 sync all, 2 sync images
    integer(c_int32_t) :: pattern        ! 0 one, 1 all-to-one, 2 ring, 3 halo (caf_pattern.F90)
  end type caf_spec

  ! The first element (array element order over all copies) that differs from what Fortran's
  ! assignment semantics say, on the image that holds the assigned-to side.
  type, bind(C) :: caf_check
    integer(c_int64_t) :: element   ! 0-based over the whole array, copies included
    integer(c_int32_t) :: wrong     ! 0 when every element is right
    integer(c_int32_t) :: image     ! the image that checked
    character(kind=c_char) :: got(caf_text_len), expected(caf_text_len)  ! NUL-terminated
  end type caf_check
end module collsim_caf_spec
