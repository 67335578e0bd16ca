/* The device API a learner's kernel calls, on the CPU runner: warp votes, __match_*, __reduce_*_sync,
 * __syncthreads_count/and/or, every atomic, the integer and floating-point intrinsics, min/max,
 * clock, __trap, assert, printf in a kernel, and cooperative groups. Each case prints what its kernel
 * computed; tests/cpu_runner_api.cmake says what each must print (closed forms, worked out by hand
 * there), in several thread orders. Valid CUDA too (nvcc -arch=sm_90 -c).
 *   cpu_runner_api_cpu CASE [--cpu-order ORDER] */
#undef NDEBUG /* the assert case needs assert(), in a Release build too */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
using namespace std; /* min/max must still be CUDA's (and std::min beside them) */
namespace cg = cooperative_groups;

/* ----- warp votes ----- */
__global__ void votes(unsigned *out) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned ballot = __ballot_sync(0xffffffffu, lane % 3 == 0);
    const int any5 = __any_sync(0xffffffffu, lane == 5), none = __any_sync(0xffffffffu, 0);
    const int all = __all_sync(0xffffffffu, lane < 32), all_but7 = __all_sync(0xffffffffu, lane != 7);
    unsigned half = 0;
    if (lane < 16) half = __ballot_sync(0x0000ffffu, lane & 1); /* only the lanes its mask names */
    if (lane == 0) {
        unsigned *o = out + warp * 8;
        o[0] = ballot, o[1] = any5, o[2] = none, o[3] = all, o[4] = all_but7, o[5] = half;
    }
}

/* __activemask: the lanes here together; the branch that went the other way is not. */
__global__ void active(unsigned *out) {
    const unsigned lane = threadIdx.x;
    if (lane % 2)
        out[lane] = __activemask();
    else
        out[lane] = __activemask();
    if (lane >= 20) return;
    out[32 + lane] = __activemask(); /* lanes 20 to 31 have exited */
}

/* __match_any_sync, __match_all_sync */
__global__ void match(unsigned *out) {
    const unsigned lane = threadIdx.x;
    int p1 = -1, p2 = -1;
    const unsigned quad = __match_any_sync(0xffffffffu, lane / 4);
    const unsigned parity = __match_any_sync(0xffffffffu, (float)(lane % 2));
    const unsigned same = __match_all_sync(0xffffffffu, 7ull, &p1);
    const unsigned differ = __match_all_sync(0xffffffffu, (int)lane, &p2);
    if (lane == 5) out[0] = quad, out[1] = parity, out[2] = same, out[3] = (unsigned)p1, out[4] = differ, out[5] = (unsigned)p2;
}

/* sm_80's __reduce_*_sync */
__global__ void reduce_sync(int *out) {
    const unsigned lane = threadIdx.x;
    const unsigned add = __reduce_add_sync(0xffffffffu, lane);
    const int min_ = __reduce_min_sync(0xffffffffu, (int)lane - 10);
    const unsigned max_ = __reduce_max_sync(0xffffffffu, lane);
    const unsigned and_ = __reduce_and_sync(0xffffffffu, lane | 0x100u);
    const unsigned or_ = __reduce_or_sync(0xffffffffu, lane | 0x100u);
    const unsigned xor_ = __reduce_xor_sync(0xffffffffu, lane);
    const int wraps = __reduce_add_sync(0xffffffffu, 0x7fffffff);
    if (lane == 31) out[0] = (int)add, out[1] = min_, out[2] = (int)max_, out[3] = (int)and_, out[4] = (int)or_,
                    out[5] = (int)xor_, out[6] = wraps;
}

/* __syncthreads_count/_and/_or over 100 threads (four warps, the last one partial) */
__global__ void block_votes(int *out) {
    const int t = threadIdx.x;
    const int count = __syncthreads_count(t % 3 == 0);
    const int all = __syncthreads_and(t < 100), all_but50 = __syncthreads_and(t != 50);
    const int any99 = __syncthreads_or(t == 99), none = __syncthreads_or(0);
    if (t == 0) out[0] = count, out[1] = all, out[2] = all_but50, out[3] = any99, out[4] = none;
}

/* ----- atomics: every function and type of the Programming Guide's list, _block and _system too ----- */
struct Cells {
    int i_add, i_sub, i_exch, i_min, i_max, i_cas, i_and, i_or, i_xor;
    unsigned u_add, u_sub, u_exch, u_min, u_max, u_inc, u_dec, u_inc_over, u_dec_over, u_cas, u_and, u_or, u_xor;
    unsigned long long ull_add, ull_exch, ull_min, ull_max, ull_cas, ull_and, ull_or, ull_xor;
    long long ll_min, ll_max;
    float f_add, f_exch;
    double d_add;
    float2 f2_add;
    float4 f4_add;
    unsigned short us_cas;
    int exch_olds; /* the sum of what atomicExch returned */
    int block_add, system_add;
    int shared_result[3];
};
template <typename T> __device__ void cas_add(T *address, T value) { /* the Programming Guide's CAS loop */
    T old = *address, assumed;
    do {
        assumed = old;
        old = atomicCAS(address, assumed, (T)(assumed + value));
    } while (old != assumed);
}
__global__ void atomics(Cells *c) {
    __shared__ int s_sum, s_max;
    __shared__ unsigned s_or;
    const int t = threadIdx.x;
    if (t == 0) s_sum = 0, s_max = -1000, s_or = 0;
    __syncthreads();
    atomicAdd(&c->i_add, 1);
    atomicAdd(&c->u_add, 1u);
    atomicAdd(&c->ull_add, 1ull << 33);
    atomicAdd(&c->f_add, 0.5f);
    atomicAdd(&c->d_add, 0.25);
    atomicAdd(&c->f2_add, make_float2(1.0f, 2.0f));
    atomicAdd(&c->f4_add, make_float4(1.0f, 2.0f, 3.0f, 4.0f));
    atomicSub(&c->i_sub, 1);
    atomicSub(&c->u_sub, 1u);
    atomicAdd(&c->exch_olds, atomicExch(&c->i_exch, t));
    atomicExch(&c->u_exch, (unsigned)t);
    atomicExch(&c->ull_exch, (unsigned long long)t);
    atomicExch(&c->f_exch, (float)t);
    atomicMin(&c->i_min, t - 20);
    atomicMax(&c->i_max, t - 20);
    atomicMin(&c->u_min, (unsigned)t + 5);
    atomicMax(&c->u_max, (unsigned)t * 3);
    atomicMin(&c->ll_min, (t - 20) * 10000000000ll);
    atomicMax(&c->ll_max, (t - 20) * 10000000000ll);
    atomicMin(&c->ull_min, ((unsigned long long)t + 1) << 40);
    atomicMax(&c->ull_max, (unsigned long long)t << 40);
    atomicInc(&c->u_inc, 9u);
    atomicDec(&c->u_dec, 9u);
    if (t == 0) atomicInc(&c->u_inc_over, 9u), atomicDec(&c->u_dec_over, 9u);
    cas_add(&c->i_cas, t);
    cas_add(&c->u_cas, (unsigned)t);
    cas_add(&c->ull_cas, (unsigned long long)t << 32);
    cas_add(&c->us_cas, (unsigned short)1);
    atomicAnd(&c->i_and, ~(1 << (t % 31)));
    atomicOr(&c->i_or, 1 << (t % 8));
    atomicXor(&c->i_xor, t);
    atomicAnd(&c->u_and, ~(1u << (t % 32)));
    atomicOr(&c->u_or, 1u << (t % 32));
    atomicXor(&c->u_xor, 1u << (t % 32));
    atomicAnd(&c->ull_and, ~(1ull << t));
    atomicOr(&c->ull_or, 1ull << t);
    atomicXor(&c->ull_xor, 3ull << t);
    atomicAdd_block(&c->block_add, 2);
    atomicAdd_system(&c->system_add, 3);
    atomicSub_block(&c->block_add, 1);
    atomicCAS_system(&c->system_add, -1, 0); /* never equal: no change */
    /* on shared memory */
    atomicAdd(&s_sum, t);
    atomicMax_block(&s_max, t % 50);
    atomicOr_system(&s_or, 1u << (t % 4));
    __syncthreads();
    if (t == 0) c->shared_result[0] = s_sum, c->shared_result[1] = s_max, c->shared_result[2] = (int)s_or;
}

/* ----- integer intrinsics, one thread ----- */
__global__ void bits(unsigned long long *o) {
    int i = 0;
    o[i++] = __popc(0xf0f0f0f0u);
    o[i++] = __popcll(0xffffffffffull);
    o[i++] = __clz(1);
    o[i++] = __clz(0);
    o[i++] = __clz(-1);
    o[i++] = __clzll(1);
    o[i++] = __ffs(0);
    o[i++] = __ffs(0x80);
    o[i++] = __ffsll(1ll << 40);
    o[i++] = __brev(1u);
    o[i++] = __brev(0x12345678u);
    o[i++] = __brevll(1ull);
    o[i++] = __byte_perm(0x33221100u, 0x77665544u, 0x7531u);
    o[i++] = __byte_perm(0x33221100u, 0x77665544u, 0x0123u);
    o[i++] = __funnelshift_l(0x89abcdefu, 0x01234567u, 8);
    o[i++] = __funnelshift_l(0x89abcdefu, 0x01234567u, 40);
    o[i++] = __funnelshift_lc(0x89abcdefu, 0x01234567u, 40);
    o[i++] = __funnelshift_r(0x89abcdefu, 0x01234567u, 8);
    o[i++] = __funnelshift_rc(0x89abcdefu, 0x01234567u, 40);
    o[i++] = (unsigned)__mul24(0x00800000, 2);
    o[i++] = (unsigned)__mul24(0x7fffff, 0x7fffff);
    o[i++] = __umul24(0x01000003u, 5u);
    o[i++] = (unsigned)__mulhi(0x40000000, 8);
    o[i++] = (unsigned)__mulhi(-1, 1);
    o[i++] = __umulhi(0xffffffffu, 0xffffffffu);
    o[i++] = (unsigned long long)__mul64hi(-1ll, 1ll);
    o[i++] = __umul64hi(~0ull, ~0ull);
    o[i++] = __sad(3, 10, 100u);
    o[i++] = __usad(10u, 3u, 1u);
    o[i++] = (unsigned)__hadd(2147483647, 2147483647);
    o[i++] = (unsigned)__rhadd(1, 2);
    o[i++] = (unsigned)__hadd(-3, 0);
    o[i++] = __uhadd(0xffffffffu, 1u);
    o[i++] = __urhadd(0xffffffffu, 0xfffffffeu);
    o[i++] = (unsigned)__dp4a(0x01020304, 0x01010101, 10);
    o[i++] = (unsigned)__dp4a((int)0xff0000ff, 0x02000002, 0); /* (-1) * 2 + (-1) * 2 */
    o[63] = (unsigned long long)i; /* how many */
}

/* ----- min and max, device and host ----- */
__host__ __device__ void min_max_values(double *o) {
    int i = 0;
    o[i++] = min(3, -4);
    o[i++] = max(3u, 4u);
    o[i++] = min(-1, 1u); /* int and unsigned: unsigned, as in CUDA */
    o[i++] = max(-1, 1u);
    o[i++] = min(2.5f, NAN);
    o[i++] = max(1.0, 2.0f);
    o[i++] = (double)llmin(-5, 3);
    o[i++] = (double)ullmax(1, 2);
    o[i++] = umin(5, 6);
    o[i++] = min(7l, 8l);
    o[i++] = (double)max(-7ll, 8ull);
}
__global__ void min_max(double *o) { min_max_values(o); }

/* ----- floating point: rounded arithmetic, conversions, reinterpretations, fast-math, math ----- */
__global__ void floats(unsigned *f, unsigned long long *d, long long *n, double *v) {
    const float third = 1.0f / 3.0f;
    const float one_ulp = 1.0f + 1.0f / 8388608.0f; /* 1 + 2^-23 */
    int i = 0;
    f[i++] = __float_as_uint(__fadd_rn(1.0f, 1e-8f));
    f[i++] = __float_as_uint(__fadd_ru(1.0f, 1e-8f));
    f[i++] = __float_as_uint(__fadd_rd(1.0f, 1e-8f));
    f[i++] = __float_as_uint(__fadd_rz(-1.0f, -1e-8f));
    f[i++] = __float_as_uint(__fadd_rd(-1.0f, -1e-8f));
    f[i++] = __float_as_uint(__fsub_ru(1.0f, -1e-8f));
    f[i++] = __float_as_uint(__fdiv_rz(1.0f, 3.0f));
    f[i++] = __float_as_uint(__fdiv_ru(1.0f, 3.0f));
    f[i++] = __float_as_uint(__fdiv_rn(1.0f, 3.0f));
    f[i++] = __float_as_uint(__fmul_rn(one_ulp, one_ulp));
    f[i++] = __float_as_uint(__fmul_ru(one_ulp, one_ulp));
    f[i++] = __float_as_uint(__fsqrt_rn(2.0f));
    f[i++] = __float_as_uint(__fsqrt_ru(2.0f));
    f[i++] = __float_as_uint(__frcp_rz(3.0f));
    f[i++] = __float_as_uint(__fmaf_rn(third, 3.0f, 0.0f));
    f[i++] = __float_as_uint(__fmaf_ru(third, 3.0f, 0.0f));
    f[i++] = __float_as_uint(__fmaf_rz(third, 3.0f, 0.0f));
    f[i++] = __float_as_uint(__int2float_rz(16777217));
    f[i++] = __float_as_uint(__int2float_ru(16777217));
    f[i++] = __float_as_uint(__int2float_rn(16777219));
    f[i++] = __float_as_uint(__double2float_rz(1.0 / 3.0));
    f[i++] = __float_as_uint(__double2float_ru(1.0 / 3.0));
    f[i++] = __float_as_uint(__saturatef(1.5f));
    f[i++] = __float_as_uint(__saturatef(-0.5f));
    f[i++] = __float_as_uint(__saturatef(NAN));
    f[i++] = __float_as_uint(__saturatef(0.25f));
    f[i++] = __float_as_uint(__fdividef(1.0f, 3e38f));
    f[i++] = __float_as_uint(__fdividef(6.0f, 3.0f));
    f[i++] = __float_as_uint(__int_as_float(0x40490fdb));
    f[i++] = (unsigned)__float_as_int(1.0f);
    f[i++] = __float_as_uint(-0.0f);
    f[i++] = __float_as_uint(__uint_as_float(0x7f800000u));
    f[i++] = __float_as_uint(rsqrtf(4.0f));
    f[i++] = __float_as_uint(rcbrtf(8.0f));
    f[i++] = __float_as_uint(__powf(2.0f, 10.0f));
    f[i++] = __float_as_uint(__log2f(8.0f));
    f[i++] = __float_as_uint(sinpif(1.0f));
    f[i++] = __float_as_uint(sinpif(-2.0f));
    f[i++] = __float_as_uint(sinpif(0.5f));
    f[i++] = __float_as_uint(sinpif(1.5f));
    f[i++] = __float_as_uint(cospif(0.5f));
    f[i++] = __float_as_uint(cospif(1.0f));
    f[i++] = __float_as_uint(norm3df(3.0f, 4.0f, 12.0f));
    f[i++] = __float_as_uint(rhypotf(3.0f, 4.0f));
    f[i++] = __float_as_uint(normcdff(0.0f));
    f[i++] = __float_as_uint(normcdfinvf(0.5f));
    f[i++] = __float_as_uint(erfcinvf(1.0f));
    f[i++] = ~0u;
    i = 0;
    d[i++] = (unsigned long long)__double_as_longlong(__dadd_ru(1.0, 1e-20));
    d[i++] = (unsigned long long)__double_as_longlong(__dadd_rn(1.0, 1e-20));
    d[i++] = (unsigned long long)__double_as_longlong(__ddiv_rz(1.0, 3.0));
    d[i++] = (unsigned long long)__double_as_longlong(__ddiv_ru(1.0, 3.0));
    d[i++] = (unsigned long long)__double_as_longlong(__fma_rn(1.0 / 3.0, 3.0, 0.0));
    d[i++] = (unsigned long long)__double_as_longlong(__fma_rd(1.0 / 3.0, 3.0, 0.0));
    d[i++] = (unsigned long long)__double_as_longlong(__fma_ru(1.0 / 3.0, 3.0, 0.0));
    d[i++] = (unsigned long long)__double_as_longlong(__dsqrt_ru(2.0));
    d[i++] = (unsigned long long)__double_as_longlong(__dsqrt_rd(2.0));
    d[i++] = (unsigned long long)__double_as_longlong(__dmul_rz(1.0 / 3.0, 3.0));
    d[i++] = (unsigned long long)__double_as_longlong(__drcp_ru(3.0));
    d[i++] = (unsigned long long)__double_as_longlong(__longlong_as_double(0x4000000000000000ll));
    d[i++] = (unsigned long long)__double_as_longlong(__hiloint2double(0x3ff00000, 0));
    d[i++] = (unsigned)__double2hiint(2.0);
    d[i++] = (unsigned long long)__double_as_longlong(rsqrt(0.25));
    d[i++] = (unsigned long long)__double_as_longlong(rcbrt(27.0));
    d[i++] = (unsigned long long)__double_as_longlong(sinpi(1.0));
    d[i++] = (unsigned long long)__double_as_longlong(cospi(2.0));
    d[i++] = ~0ull;
    i = 0;
    n[i++] = __float2int_rn(2.5f);
    n[i++] = __float2int_rn(3.5f);
    n[i++] = __float2int_rn(-2.5f);
    n[i++] = __float2int_rz(-2.7f);
    n[i++] = __float2int_ru(2.1f);
    n[i++] = __float2int_rd(-2.1f);
    n[i++] = __float2int_rz(1e10f);
    n[i++] = __float2int_rn(NAN);
    n[i++] = __float2uint_rn(-5.0f);
    n[i++] = __float2uint_ru(4.5f);
    n[i++] = __float2ll_rd(-1.5f);
    n[i++] = (long long)__float2ull_ru(0.1f);
    n[i++] = __double2int_rn(-0.5);
    n[i++] = __double2int_rd(-0.5);
    n[i++] = __double2uint_rz(7.9);
    n[i++] = __double2ll_ru(1e15 + 0.5);
    n[i++] = (long long)__double2ull_rn(2.5);
    n[i++] = (long long)__ll2double_rd((1ll << 53) + 1);
    n[i++] = (long long)__ll2double_ru((1ll << 53) + 1);
    n[i++] = (long long)__ull2float_rz((1ull << 24) + 1);
    n[i++] = (long long)__uint2float_ru((1u << 24) + 1);
    n[i++] = -999;
    i = 0;
    v[i++] = __expf(1.0f);
    v[i++] = __logf(2.718281828f);
    v[i++] = __exp10f(2.0f);
    v[i++] = __log10f(1000.0f);
    v[i++] = __sinf(0.5f);
    v[i++] = __cosf(0.5f);
    v[i++] = __tanf(0.5f);
    float s, c;
    __sincosf(1.0f, &s, &c);
    v[i++] = s * s + c * c;
    sincosf(0.5f, &s, &c);
    v[i++] = s;
    sincospif(0.25f, &s, &c);
    v[i++] = s + c;
    v[i++] = exp10f(2.0f);
    v[i++] = fdividef(1.0f, 3e38f);
    v[i++] = erfinvf(0.5f);
    v[i++] = erfinv(erf(0.3));
    v[i++] = normcdfinv(0.975);
    v[i++] = rnorm3df(3.0f, 4.0f, 12.0f);
    const float three[3] = {1.0f, 2.0f, 2.0f};
    v[i++] = normf(3, three);
    v[i++] = erfcx(1.0);
    v[i++] = -999;
}

/* ----- time, sleep ----- */
__global__ void times(int *out) {
    const clock_t t0 = clock();
    const long long c0 = clock64();
    __nanosleep(1000);
    const clock_t t1 = clock();
    const long long c1 = clock64();
    out[threadIdx.x] = (t1 > t0) + 2 * (c1 > c0);
}

/* __trap() in one thread ends the kernel. */
__global__ void trap(int *out) {
    out[threadIdx.x] = 1;
    if (threadIdx.x == 5) __trap();
}

/* assert() in a kernel */
__global__ void asserts(const int *in) {
    assert(in[threadIdx.x] < 3);
}

/* printf in a kernel */
__global__ void prints() { printf("thread %d of block %d says %.2f\n", (int)threadIdx.x, (int)blockIdx.x, 0.25 * threadIdx.x); }

/* __threadfence(): the last block to finish adds the blocks' sums (the threadFenceReduction pattern) */
__device__ unsigned blocks_done;
__global__ void last_block(const int *in, int *partial, int *total) {
    __shared__ int s_sum;
    __shared__ bool s_last;
    if (threadIdx.x == 0) s_sum = 0;
    __syncthreads();
    atomicAdd(&s_sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s_sum;
        __threadfence();
        s_last = atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (s_last && threadIdx.x == 0) {
        int sum = 0;
        for (unsigned b = 0; b < gridDim.x; ++b)
            sum += ((volatile int *)partial)[b];
        *total = sum;
        blocks_done = 0;
    }
}

/* ----- cooperative groups ----- */
__global__ void cg_block(unsigned *out) {
    __shared__ unsigned s_rank[96];
    cg::thread_block block = cg::this_thread_block();
    const unsigned r = block.thread_rank();
    s_rank[r] = r;
    block.sync();
    cg::sync(block);
    const unsigned neighbour = s_rank[(r + 1) % block.size()];
    if (r == 37 && blockIdx.x == 2) {
        out[0] = block.size(), out[1] = block.num_threads(), out[2] = neighbour, out[3] = block.group_index().x,
        out[4] = block.thread_index().x, out[5] = block.thread_index().y, out[6] = block.dim_threads().x,
        out[7] = block.group_dim().y, out[8] = cg::this_grid().block_rank(), out[9] = (unsigned)cg::this_grid().thread_rank(),
        out[10] = (unsigned)cg::this_grid().num_blocks(), out[11] = cg::this_thread().size();
        cg::thread_group g = block; /* a block as a thread_group */
        out[12] = (unsigned)g.size() + (unsigned)g.thread_rank();
    }
}

__global__ void cg_tiles(int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    auto tile8 = cg::tiled_partition<8>(block);
    cg::thread_block_tile<4> tile4 = cg::tiled_partition<4>(tile8); /* a tile of a tile */
    const int t = (int)block.thread_rank();
    int sum = t; /* the warp's sum with shfl_down: lane 0 */
    for (int offset = warp.size() / 2; offset > 0; offset /= 2)
        sum += warp.shfl_down(sum, offset);
    int xor8 = t; /* the butterfly in tiles of 8: every thread */
    for (int m = 4; m > 0; m /= 2)
        xor8 += tile8.shfl_xor(xor8, m);
    const int up = tile8.shfl_up(t, 1), from3 = tile8.shfl(t, 3);
    const unsigned ballot = tile8.ballot(t % 2 == 0);
    const int any = tile4.any(t == 6), all = tile4.all(t < 60);
    const unsigned matched = warp.match_any(t / 8);
    double wide = t * 0.5; /* a value of 8 bytes, and a struct of 12 */
    wide = warp.shfl(wide, 31);
    struct Triple { int a, b, c; } triple = {t, 2 * t, 3 * t};
    triple = tile8.shfl_down(triple, 2);
    warp.sync();
    tile8.sync();
    cg::thread_block_tile<8> plain = tile8; /* the parent forgotten, as thread_block_tile<8> */
    if (t == 41) {
        int i = 0;
        out[i++] = xor8, out[i++] = up, out[i++] = from3, out[i++] = (int)ballot, out[i++] = any,
        out[i++] = all, out[i++] = (int)matched, out[i++] = (int)wide, out[i++] = triple.a + triple.b + triple.c,
        out[i++] = (int)warp.thread_rank(), out[i++] = (int)warp.meta_group_rank(), out[i++] = (int)warp.meta_group_size(),
        out[i++] = (int)tile8.thread_rank(), out[i++] = (int)tile8.meta_group_rank(), out[i++] = (int)tile8.meta_group_size(),
        out[i++] = (int)tile4.thread_rank(), out[i++] = (int)tile4.meta_group_rank(), out[i++] = (int)tile4.meta_group_size(),
        out[i++] = (int)plain.num_threads();
    }
    if (t == 32) out[30] = sum;
}

__global__ void cg_reduce(unsigned *out) {
    cg::thread_block block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    auto tile8 = cg::tiled_partition<8>(block);
    const unsigned t = block.thread_rank(), lane = warp.thread_rank();
    /* lane 0: 1, the others 2^-24 (half an ulp of 1): the order of the additions shows in the bits */
    const float value = lane == 0 ? 1.0f : 1.0f / 16777216.0f;
    const float sum = cg::reduce(warp, value, cg::plus<float>());
    const int isum = cg::reduce(tile8, (int)t, cg::plus<int>());
    const int least = cg::reduce(warp, 100 - (int)t, cg::less<int>());
    const int most = cg::reduce(warp, (int)t, cg::greater<int>());
    const unsigned ands = cg::reduce(warp, 0xffu ^ (1u << (lane % 8)), cg::bit_and<unsigned>());
    const unsigned ors = cg::reduce(tile8, 1u << lane, cg::bit_or<unsigned>());
    const unsigned xors = cg::reduce(warp, lane, cg::bit_xor<unsigned>());
    const double dsum = cg::reduce(warp, (double)t, [](double a, double b) { return a + b; });
    unsigned csum = 0, cfloat = 0, csize = 0, crank = 0, cballot = 0, cshfl = 0;
    if (lane % 3 == 0) { /* 11 lanes of each warp */
        cg::coalesced_group active = cg::coalesced_threads();
        csize = active.size(), crank = active.thread_rank(), cballot = active.ballot(active.thread_rank() % 2 == 0);
        cshfl = active.shfl(lane, 2) + 100 * active.shfl_down(lane, 1);
        csum = cg::reduce(active, lane, cg::plus<unsigned>());
        cfloat = __float_as_uint(cg::reduce(active, lane == 0 ? 1.0f : 1.0f / 16777216.0f, cg::plus<float>()));
    }
    if (t == 33) {
        int i = 0;
        out[i++] = __float_as_uint(sum), out[i++] = (unsigned)isum, out[i++] = (unsigned)least, out[i++] = (unsigned)most,
        out[i++] = ands, out[i++] = ors, out[i++] = xors, out[i++] = (unsigned)dsum;
    }
    if (t == 35) { /* lane 3: rank 1 of the 11 */
        out[8] = csum, out[9] = cfloat, out[10] = csize, out[11] = crank, out[12] = cballot, out[13] = cshfl;
    }
}

/* Warp-aggregated atomics (coalesced_threads in a branch), dynamic tiles, labeled partitions */
__global__ void cg_coalesced(int *counter, int *out) {
    cg::thread_block block = cg::this_thread_block();
    const int t = (int)block.thread_rank();
    if (t % 3 == 0) {
        cg::coalesced_group g = cg::coalesced_threads();
        int first = 0;
        if (g.thread_rank() == 0) first = atomicAdd(counter, (int)g.size());
        out[t] = g.shfl(first, 0) + (int)g.thread_rank(); /* a distinct slot each */
    } else {
        out[t] = -1;
    }
}
__global__ void cg_partitions(int *out) {
    cg::thread_block block = cg::this_thread_block();
    const int t = (int)block.thread_rank();
    cg::thread_group quad = cg::tiled_partition(block, 4);
    quad.sync();
    auto warp = cg::tiled_partition<32>(block);
    cg::coalesced_group same_label = cg::labeled_partition(warp, t % 4);
    cg::coalesced_group odd = cg::binary_partition(warp, t % 2 == 1);
    const int label_sum = cg::reduce(same_label, t, cg::plus<int>());
    if (t == 45) out[0] = (int)quad.size(), out[1] = (int)quad.thread_rank(), out[2] = (int)same_label.size(),
                 out[3] = (int)same_label.thread_rank(), out[4] = (int)odd.size(), out[5] = (int)odd.thread_rank(),
                 out[6] = label_sum;
}

#ifdef CPU_RUNNER_API_GRID_SYNC
/* Not modelled: must not build for the CPU runner (the blocks run one after another). */
__global__ void grid_sync(int *out) {
    cg::grid_group grid = cg::this_grid();
    out[grid.thread_rank()] = 1;
    grid.sync();
}
#endif

/* ----- the host side ----- */
template <typename T> static T *device_zeros(size_t count) {
    T *p;
    cudaMalloc((void **)&p, count * sizeof(T));
    cudaMemset(p, 0, count * sizeof(T));
    return p;
}
template <typename T> static void fetch(T *host, const T *device, size_t count) {
    cudaMemcpy(host, device, count * sizeof(T), cudaMemcpyDeviceToHost);
}
static void print_hex(const char *name, const unsigned *v, int count) {
    printf("%s", name);
    for (int i = 0; i < count; ++i) printf(" %x", v[i]);
    printf("\n");
}
static void print_ints(const char *name, const int *v, int count) {
    printf("%s", name);
    for (int i = 0; i < count; ++i) printf(" %d", v[i]);
    printf("\n");
}

static int run(const char *which) {
    if (strcmp(which, "votes") == 0) {
        unsigned *d = device_zeros<unsigned>(16), h[16];
        votes<<<1, 64>>>(d);
        fetch(h, d, 16);
        print_hex("warp0", h, 6);
        print_hex("warp1", h + 8, 6);
    } else if (strcmp(which, "activemask") == 0) {
        unsigned *d = device_zeros<unsigned>(64), h[64];
        active<<<1, 32>>>(d);
        fetch(h, d, 64);
        printf("branches %x %x %x %x\n", h[0], h[1], h[30], h[31]);
        printf("after_exit %x %x\n", h[32], h[32 + 19]);
    } else if (strcmp(which, "match") == 0) {
        unsigned *d = device_zeros<unsigned>(8), h[8];
        match<<<1, 32>>>(d);
        fetch(h, d, 6);
        print_hex("match", h, 6);
    } else if (strcmp(which, "reduce_sync") == 0) {
        int *d = device_zeros<int>(8), h[8];
        reduce_sync<<<1, 32>>>(d);
        fetch(h, d, 7);
        print_ints("reduce", h, 7);
    } else if (strcmp(which, "block_votes") == 0) {
        int *d = device_zeros<int>(8), h[8];
        block_votes<<<1, 100>>>(d);
        fetch(h, d, 5);
        print_ints("block", h, 5);
    } else if (strcmp(which, "atomics") == 0) {
        Cells h;
        memset(&h, 0, sizeof h);
        h.i_sub = 0, h.u_sub = 100, h.i_exch = -1, h.i_min = 1000, h.i_max = -1000, h.u_min = 1000, h.ll_min = 0,
        h.ll_max = 0, h.ull_min = ~0ull, h.i_and = -1, h.u_and = ~0u, h.ull_and = ~0ull, h.u_inc_over = 20,
        h.u_dec_over = 20, h.us_cas = 65500;
        Cells *d;
        cudaMalloc((void **)&d, sizeof h);
        cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
        atomics<<<1, 64>>>(d);
        fetch(&h, d, 1);
        printf("add %d %u %llu %g %g %g %g %g %g %g %g\n", h.i_add, h.u_add, h.ull_add, h.f_add, h.d_add, h.f2_add.x,
               h.f2_add.y, h.f4_add.x, h.f4_add.y, h.f4_add.z, h.f4_add.w);
        printf("sub %d %u\n", h.i_sub, h.u_sub);
        printf("exch %d %d\n", h.exch_olds + h.i_exch, h.u_exch < 64 && h.ull_exch < 64 && h.f_exch < 64.0f);
        printf("min_max %d %d %u %u %lld %lld %llu %llu\n", h.i_min, h.i_max, h.u_min, h.u_max, h.ll_min, h.ll_max,
               h.ull_min, h.ull_max);
        printf("inc_dec %u %u %u %u\n", h.u_inc, h.u_dec, h.u_inc_over, h.u_dec_over);
        printf("cas %d %u %llu %u\n", h.i_cas, h.u_cas, h.ull_cas, (unsigned)h.us_cas);
        printf("bitwise %d %d %d %x %x %x %llx %llx %llx\n", h.i_and, h.i_or, h.i_xor, h.u_and, h.u_or, h.u_xor,
               h.ull_and, h.ull_or, h.ull_xor);
        printf("scopes %d %d\n", h.block_add, h.system_add);
        printf("shared %d %d %d\n", h.shared_result[0], h.shared_result[1], h.shared_result[2]);
    } else if (strcmp(which, "bits") == 0) {
        unsigned long long *d = device_zeros<unsigned long long>(64), h[64];
        bits<<<1, 1>>>(d);
        fetch(h, d, 64);
        printf("bits");
        for (int i = 0; i < (int)h[63]; ++i) printf(" %llx", h[i]);
        printf("\n");
    } else if (strcmp(which, "min_max") == 0) {
        double *d = device_zeros<double>(16), h[16], host[16];
        min_max<<<1, 1>>>(d);
        fetch(h, d, 11);
        min_max_values(host);
        printf("min_max");
        for (int i = 0; i < 11; ++i) printf(" %.17g", h[i]);
        printf("\nhost_same %d std %g\n", memcmp(h, host, 11 * sizeof(double)) == 0,
               std::min(1, 2) + std::max(1.5, 0.5)); /* the standard ones are still there */
    } else if (strcmp(which, "floats") == 0) {
        unsigned *f = device_zeros<unsigned>(64), hf[64];
        unsigned long long *dd = device_zeros<unsigned long long>(64), hd[64];
        long long *n = device_zeros<long long>(64), hn[64];
        double *v = device_zeros<double>(64), hv[64];
        floats<<<1, 1>>>(f, dd, n, v);
        fetch(hf, f, 64), fetch(hd, dd, 64), fetch(hn, n, 64), fetch(hv, v, 64);
        printf("f");
        for (int i = 0; hf[i] != ~0u; ++i) printf(" %08x", hf[i]);
        printf("\nd");
        for (int i = 0; hd[i] != ~0ull; ++i) printf(" %016llx", hd[i]);
        printf("\nn");
        for (int i = 0; hn[i] != -999; ++i) printf(" %lld", hn[i]);
        printf("\nv");
        for (int i = 0; hv[i] != -999; ++i) printf(" %.5g", hv[i]);
        printf("\n");
    } else if (strcmp(which, "times") == 0) {
        int *d = device_zeros<int>(64), h[64];
        const clock_t host0 = clock();
        times<<<1, 64>>>(d);
        fetch(h, d, 64);
        int all = 1;
        for (int i = 0; i < 64; ++i) all &= h[i] == 3;
        printf("increasing %d host %d %d\n", all, clock() > host0, std::clock() >= host0);
    } else if (strcmp(which, "trap") == 0) {
        int *d = device_zeros<int>(64);
        trap<<<1, 64>>>(d);
        printf("sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    } else if (strcmp(which, "assert_holds") == 0 || strcmp(which, "assert_fails") == 0) {
        int h[32], *d = device_zeros<int>(32);
        for (int i = 0; i < 32; ++i) h[i] = strcmp(which, "assert_fails") == 0 && i == 7 ? 3 : i % 3;
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
        asserts<<<1, 32>>>(d);
        printf("sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    } else if (strcmp(which, "printf") == 0) {
        prints<<<2, 2>>>();
        cudaDeviceSynchronize();
    } else if (strcmp(which, "last_block") == 0) {
        int h[256], *in = device_zeros<int>(256), *partial = device_zeros<int>(4), *total = device_zeros<int>(1);
        for (int i = 0; i < 256; ++i) h[i] = i;
        cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
        last_block<<<4, 64>>>(in, partial, total);
        last_block<<<4, 64>>>(in, partial, total); /* blocks_done went back to 0 */
        fetch(h, total, 1);
        printf("total %d\n", h[0]);
    } else if (strcmp(which, "cg_block") == 0) {
        unsigned *d = device_zeros<unsigned>(16), h[16];
        cg_block<<<3, dim3(32, 3)>>>(d);
        fetch(h, d, 13);
        printf("block");
        for (int i = 0; i < 13; ++i) printf(" %u", h[i]);
        printf("\n");
    } else if (strcmp(which, "cg_tiles") == 0) {
        int *d = device_zeros<int>(32), h[32];
        cg_tiles<<<1, 64>>>(d);
        fetch(h, d, 31);
        print_ints("tiles", h, 19);
        print_ints("warp1", h + 30, 1);
    } else if (strcmp(which, "cg_reduce") == 0) {
        unsigned *d = device_zeros<unsigned>(16), h[16];
        cg_reduce<<<1, 64>>>(d);
        fetch(h, d, 14);
        print_hex("reduce", h, 8);
        print_hex("coalesced", h + 8, 6);
    } else if (strcmp(which, "cg_coalesced") == 0) {
        int *counter = device_zeros<int>(1), *d = device_zeros<int>(64), h[64];
        cg_coalesced<<<1, 64>>>(counter, d);
        fetch(h, d, 64);
        int slots = 0, count;
        for (int t = 0; t < 64; ++t)
            if (h[t] >= 0) slots |= 1 << h[t];
        fetch(&count, counter, 1);
        printf("aggregated %d %x\n", count, slots);
    } else if (strcmp(which, "cg_partitions") == 0) {
        int *d = device_zeros<int>(8), h[8];
        cg_partitions<<<1, 64>>>(d);
        fetch(h, d, 7);
        print_ints("partitions", h, 7);
    } else {
        fprintf(stderr, "cpu_runner_api: unknown case '%s'\n", which);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv) {
    const int status = run(argc > 1 ? argv[1] : "");
    if (status == 0 && cudaDeviceSynchronize() != cudaSuccess) return 3;
    return status;
}
