/* Java int arithmetic: Matrix stores durations, depths and counts in Java
 * ints, which wrap modulo 2^32.  These helpers wrap the same way without
 * relying on implementation-defined conversions. */
#ifndef HANGAR_JAVA_INT_H
#define HANGAR_JAVA_INT_H

#include <stdint.h>

/* The low 32 bits of v as a two's complement Java int. */
static inline int32_t java_low32(uint64_t v)
{
	uint32_t u = (uint32_t)v;
	return u < 0x80000000u ? (int32_t)u : -(int32_t)(0xFFFFFFFFu - u) - 1;
}

/* (int) v in Java. */
static inline int32_t java_int(int64_t v)
{
	return java_low32((uint64_t)v);
}

static inline int32_t java_add(int32_t a, int32_t b)
{
	return java_int((int64_t)a + b);
}

static inline int32_t java_mul(int32_t a, int32_t b)
{
	return java_int((int64_t)a * b);
}

#endif
