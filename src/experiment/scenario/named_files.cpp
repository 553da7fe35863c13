#include "experiment/scenario/named_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "support/input_error.hpp"

namespace collsim {

namespace fs = std::filesystem;

std::ifstream open_input_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  // An ifstream opens a directory and then fails in its first read with a C++ exception.
  if (fs::is_directory(path, ec)) throw InputError(path + ": is a directory, not a " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the " + what + " (" + std::strerror(errno) + ")");
  return in;
}

std::string read_input_file(const std::string& path, const std::string& what) {
  std::ifstream in = open_input_file(path, what);
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) text.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw InputError(path + ": cannot read the " + what);
  return text;
}

void check_output_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path + ": is a directory; give a file name for the " + what);
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec))
    throw InputError(path + ": cannot write the " + what + " (no folder " + folder.string() + ")");
}

void write_file_atomically(const std::string& path, const std::string& text, const std::string& what) {
  const std::string tmp = path + ".tmp";
  bool opened = false;  // PATH.tmp is ours to remove
  const auto fail = [&](const std::string& reason) {
    if (opened) std::remove(tmp.c_str());
    throw InputError(path + ": cannot write the " + what + " (" + reason + ")");
  };
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail("it is a directory");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::strerror(errno));
    opened = true;
    out << text;
    out.flush();
    if (!out) fail(std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(std::strerror(errno));
}

void make_output_folder(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir + ": cannot create the output folder (" + ec.message() + ")");
  if (!fs::is_directory(dir, ec)) throw InputError(dir + ": cannot create the output folder (a file is there)");
}

}  // namespace collsim
