/* The element type a program runs in (--type float|double). Plain C (and element_name, C++). */
#ifndef COMMON_ELEMENT_TYPE_H
#define COMMON_ELEMENT_TYPE_H

#include <stddef.h>

typedef enum { ELEMENT_FLOAT = 0, ELEMENT_DOUBLE = 1 } element_type;

static inline const char *element_type_name(element_type type) { return type == ELEMENT_DOUBLE ? "double" : "float"; }

static inline size_t element_size(element_type type) { return type == ELEMENT_DOUBLE ? sizeof(double) : sizeof(float); }

#ifdef __cplusplus
/* A template's element type by name, as Nsight Compute prints it in a kernel's. */
template <typename element> static const char *element_name(void) {
    return sizeof(element) == sizeof(double) ? "double" : sizeof(element) == sizeof(float) ? "float" : "int";
}
#endif

#endif
