/* C++ names through libiberty's demangler (Debian's libiberty-dev, the
 * one binutils' c++filt and GDB use): the only file that sees libiberty.
 * Chosen over LLVM's (libLLVMDemangle) because it is a small static
 * library with a C interface and no C++ runtime to link, kept in step with
 * GCC's and Clang's manglings by the GNU toolchain.  Options as c++filt:
 * parameters and the ANSI qualifiers (const, volatile) shown, and std::
 * abbreviations written out ("std::basic_string<char, ...>", not
 * "std::string") so that a name reads the same as c++filt's. */
#include <stdlib.h>

#include <libiberty/demangle.h>

#include "demangle_internal.h"

char *demangle_cxx(const char *s)
{
	/* libiberty bounds its own recursion (DMGL_NO_RECURSE_LIMIT unset),
	 * so a hostile nesting gives NULL, not a stack overflow. */
	return cplus_demangle_v3(s, DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE);
}
