/* Not modelled by the CPU runner (the toolkit's own header would bring the toolkit's cooperative_groups.h). */
#error "cooperative_groups/scan.h is not modelled by the CPU runner"
