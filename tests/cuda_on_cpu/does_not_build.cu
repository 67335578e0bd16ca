/* A slip the compiler names on this file's own line. */
__global__ void broken(float *x) {
    x[threadIdx.x] = undeclared_name;
}

int main() { return 0; }
