/* The program's own arguments come after --; the runner's --cpu-order is taken out of them. */
#include <stdio.h>

int main(int argc, char **argv) {
    printf("argc %d:", argc - 1);
    for (int i = 1; i < argc; ++i)
        printf(" %s", argv[i]);
    printf("\n");
    return argc > 3 ? 5 : 0;
}
