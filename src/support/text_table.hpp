// Tables printed on the terminal: every command's columns laid out the same way.
#pragma once

#include <string>
#include <vector>

namespace collsim {

// Rows of cells as lines: each column as wide as its widest cell, columns two spaces apart, no
// trailing blanks. A column whose `right_aligned` entry is true is padded on the left (numbers,
// so their digits line up), the others on the right. With `header`, the first row is the
// columns' names: left-aligned whatever the column, and underlined by a rule of dashes.
std::string format_text_table(const std::vector<std::vector<std::string>>& rows,
                              const std::vector<bool>& right_aligned = {}, bool header = false);

}  // namespace collsim
