/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl internal helpers for DAT return codes. The public side,
 * dat_strerror() and the codes themselves, is in <dat2/dat_error.h>.
 */
#ifndef KDAPL_ERROR_H
#define KDAPL_ERROR_H

#include <linux/types.h>

#include <dat2/dat_error.h>

/**
 * struct kdapl_code_name - one DAT return type and its spelling
 * @value: the type, already shifted into bits 29..16
 * @name: the specification's identifier, e.g. "DAT_INVALID_HANDLE"
 */
struct kdapl_code_name {
	u32 value;
	const char *name;
};

DAT_RETURN kdapl_errno_to_dat(int err);

/* The name tables behind dat_strerror(), exposed for the self-tests. */
const struct kdapl_code_name *kdapl_dat_type_names(size_t *count);
const char * const *kdapl_dat_subtype_names(size_t *count);

#endif /* KDAPL_ERROR_H */
