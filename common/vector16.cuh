/* A 16-byte vector of the element type: one load or store instruction moves
 * 16 bytes (float4, double2). The wide steps of dot, reduce and transpose use it. */
#ifndef COMMON_VECTOR16_CUH
#define COMMON_VECTOR16_CUH

template <typename real> struct vector16;
template <> struct vector16<float> {
    typedef float4 type;
    static const int width = 4;
};
template <> struct vector16<double> {
    typedef double2 type;
    static const int width = 2;
};

#endif
