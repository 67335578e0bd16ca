// recursion_small: a recursive __device__ function (naive Fibonacci, at most 15 deep) and a
// recursive sum over a binary tree stored in an array. Correct.
// expect: clean
#include <stdio.h>

#define THREADS 64
#define NODES 63

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ int subtree_sum(const int *tree, int node) {
    if (node >= NODES) return 0;
    return tree[node] + subtree_sum(tree, 2 * node + 1) + subtree_sum(tree, 2 * node + 2);
}

__global__ void recurse(const int *tree, int *out) {
    int t = threadIdx.x;
    out[t] = fib(t % 16) + (t < NODES ? subtree_sum(tree, t) : 0);
}

static int host_fib(int n) { return n < 2 ? n : host_fib(n - 1) + host_fib(n - 2); }
static int host_sum(const int *tree, int node) {
    return node >= NODES ? 0 : tree[node] + host_sum(tree, 2 * node + 1) + host_sum(tree, 2 * node + 2);
}

int main() {
    int h_tree[NODES], h_out[THREADS];
    for (int i = 0; i < NODES; ++i) h_tree[i] = i % 4 + 1;
    int *d_tree, *d_out;
    cudaMalloc(&d_tree, sizeof h_tree);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_tree, h_tree, sizeof h_tree, cudaMemcpyHostToDevice);
    recurse<<<1, THREADS>>>(d_tree, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < THREADS; ++t)
        wrong += h_out[t] != host_fib(t % 16) + (t < NODES ? host_sum(h_tree, t) : 0);
    printf("out[0] %d out[15] %d, wrong %d\n", h_out[0], h_out[15], wrong);
    cudaFree(d_tree);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
