// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: a software iWARP RNIC (MPA/DDP/RDMAP over kernel TCP sockets).
 *
 * Module init and exit and the provider's debugfs root. The protocol
 * codecs live in proto/ (kernel-independent, shared with the host tests).
 *
 * debugfs layout (see Documentation/architecture.rst):
 *   /sys/kernel/debug/kiwarp/
 *     version   module version and the MPA revisions it speaks
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "mpa.h"

#define KIWARP_VERSION "0.1"

/* /sys/kernel/debug/kiwarp: created at init, removed at exit. */
static struct dentry *kiwarp_debugfs;

static int version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "kiwarp %s MPA rev 1,2 max private data %u\n",
		   KIWARP_VERSION, MPA_MAX_PRIVDATA);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

static int __init kiwarp_init(void)
{
	kiwarp_debugfs = debugfs_create_dir("kiwarp", NULL);
	debugfs_create_file("version", 0444, kiwarp_debugfs, NULL,
			    &version_fops);
	pr_info("kiwarp: software iWARP RNIC loaded\n");
	return 0;
}

static void __exit kiwarp_exit(void)
{
	debugfs_remove_recursive(kiwarp_debugfs);
	pr_info("kiwarp: unloaded\n");
}

module_init(kiwarp_init);
module_exit(kiwarp_exit);

MODULE_DESCRIPTION("Software iWARP RNIC over kernel TCP sockets");
MODULE_LICENSE("GPL");
MODULE_VERSION(KIWARP_VERSION);
