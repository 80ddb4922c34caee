/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl internal declarations shared by the core's files.
 */
#ifndef KDAPL_KDAPL_H
#define KDAPL_KDAPL_H

#include <linux/dcache.h>

#include "handle.h"

/**
 * struct kdapl_globals - module-wide state
 * @handles: every live DAT handle; see handle.h for its locking
 * @debugfs: /sys/kernel/debug/kdapl, created at init, removed at exit
 *
 * Set up once in kdapl_init() before anything can reach it and torn down
 * in kdapl_exit() after everything that could reach it is gone.
 */
struct kdapl_globals {
	struct kdapl_htable handles;
	struct dentry *debugfs;
};

extern struct kdapl_globals kdapl;

#endif /* KDAPL_KDAPL_H */
