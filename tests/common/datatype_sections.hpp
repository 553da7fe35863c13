// The strided sections the datatype scheme's end-to-end tests move (collsim coarray --scheme
// datatype on the model and sim engines, collsim-mpi on 2 processes): 8-byte elements, each with
// the transfers one statement makes. No section is written ':' alone, which mpirun would take for
// its separator of programs.
#pragma once

#include <string>

namespace collsim_test {

struct DatatypeSection {
  std::string args;       // the --local/--remote options, with a leading space
  std::string transfers;  // the CSV's transfers for one statement
};

inline const DatatypeSection kDatatypeSections[] = {
    // 1-D strided: every other element of b(200) into a(1:100): 100 pieces of 8 B.
    {" --local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100", "1"},
    // 2-D column section: columns 2, 5 and 8 of a(10,10) from b(10,3): three pieces of 80 B.
    {" --local :,: --local-shape 10,3 --remote :,2:8:3 --remote-shape 10,10", "1"},
    // A negative stride: b(100:1:-1) reversed into a(1:100).
    {" --local 100:1:-1 --local-shape 100 --remote 1:100 --remote-shape 100", "1"},
    // Rank 3: a(2:3,1:4:3,2:3) of a(4,4,4) from b(2,2,2) (contiguous): 4 pieces of 16 B.
    {" --local :,:,: --local-shape 2,2,2 --remote 2:3,1:4:3,2:3 --remote-shape 4,4,4", "1"},
    // Empty: a(5:4) = b(3:2), nothing moved.
    {" --local 3:2 --local-shape 10 --remote 5:4 --remote-shape 10", "0"},
};

}  // namespace collsim_test
