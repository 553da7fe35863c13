// The files a user names, on the command line or in a scenario: inputs read whole, outputs
// written whole and atomically, their folders created. Every problem is one InputError
// "PATH: what is wrong" (exit status 2): a folder given for a file, a file that cannot be opened,
// an output folder that cannot be created, rather than a C++ stream error or a failed run.
#pragma once

#include <fstream>
#include <string>

namespace collsim {

// The input file `path`, a `what` ("scenario file", "results file"), open for reading; InputError
// "PATH: is a directory, not a WHAT" or "PATH: cannot open the WHAT (REASON)". For readers that
// go line by line, so a large file (a trace) is never held whole.
std::ifstream open_input_file(const std::string& path, const std::string& what);
// Its whole text; also InputError "PATH: cannot read the WHAT".
std::string read_input_file(const std::string& path, const std::string& what);

// Refuses, before any work, an output file that could not be written: `path` a directory, or in a
// folder that does not exist.
void check_output_file(const std::string& path, const std::string& what);

// Writes `text` to `path` through PATH.tmp and a rename, so the file is either the old one or the
// whole new one; on failure nothing is left at PATH.tmp and InputError "PATH: cannot write the
// WHAT".
void write_file_atomically(const std::string& path, const std::string& text, const std::string& what = "file");

// Creates the output folder `dir` and its parents; InputError "DIR: cannot create the output
// folder (REASON)" when it cannot (a file on the way, no permission).
void make_output_folder(const std::string& dir);

}  // namespace collsim
