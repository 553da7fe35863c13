#include "support/text_table.hpp"

#include <algorithm>

namespace collsim {

std::string format_text_table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned,
                              bool header) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      const std::string& cell = rows[r][c];
      const bool right = !(header && r == 0) && c < right_aligned.size() && right_aligned[c];
      const std::string pad(width[c] - cell.size(), ' ');
      line += (c ? "  " : "") + (right ? pad + cell : cell + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (header && r == 0) {
      std::size_t total = 0;
      for (std::size_t w : width) total += w + 2;
      out += std::string(total >= 2 ? total - 2 : 0, '-') + "\n";
    }
  }
  return out;
}

}  // namespace collsim
