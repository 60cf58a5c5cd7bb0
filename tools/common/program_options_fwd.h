// The Boost.Program_options types the tools' shared headers name, declared
// only: a file that adds, parses or reads options includes
// <boost/program_options.hpp> itself, and the others do not pay for it.
#pragma once

namespace boost::program_options {
class options_description;
class options_description_easy_init;
class positional_options_description;
class variables_map;
}  // namespace boost::program_options
