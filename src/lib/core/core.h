/* The part of core that the other modules of the library use beyond its
 * public headers (hangar.h, arena.h, text.h, input.h, pipe.h); private to
 * src/lib/.  It is the one header of src/lib/core/ that another module may
 * include (scripts/check-layout); each piece keeps a header of its own:
 *   bigmem.h          large buffers, on huge pages where the system has them
 *   chunk_read.h      part of a file read in chunks, complete lines to a callback
 *   linescan.h        a bitmap of the newlines of a block, 64 bytes at a time
 *   strmap.h          a map from strings to 64-bit values
 *   strcache.h        one arena copy of strings that come again and again
 *   sha256.h          SHA-256 (the only window on libcrypto)
 *   input_internal.h  opening an input by what its path is */
#ifndef HANGAR_LIB_CORE_H
#define HANGAR_LIB_CORE_H

#include "bigmem.h"
#include "chunk_read.h"
#include "input_internal.h"
#include "linescan.h"
#include "sha256.h"
#include "strcache.h"
#include "strmap.h"

#endif
