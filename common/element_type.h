/* The element type a program runs in (--type float|double). Plain C. */
#ifndef COMMON_ELEMENT_TYPE_H
#define COMMON_ELEMENT_TYPE_H

#include <stddef.h>

typedef enum { ELEMENT_FLOAT = 0, ELEMENT_DOUBLE = 1 } element_type;

static inline const char *element_type_name(element_type type) { return type == ELEMENT_DOUBLE ? "double" : "float"; }

static inline size_t element_size(element_type type) { return type == ELEMENT_DOUBLE ? sizeof(double) : sizeof(float); }

#endif
