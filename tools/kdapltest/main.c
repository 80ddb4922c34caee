// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest.ko: OFA dapltest's tests as an in-kernel DAT consumer.
 *
 * The front end (tools/kdapltest/frontend, the `kdapltest` command)
 * talks to the module through the misc device /dev/kdapltest and the
 * versioned ioctls of uapi/kdapltest.h. See Documentation/kdapltest.rst.
 */

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kdt.h"

static long kdt_ioctl_version(void __user *arg)
{
	struct kdt_version v = {
		.abi_major = KDT_ABI_MAJOR,
		.abi_minor = KDT_ABI_MINOR,
		.dapltest_version = KDT_DAPLTEST_VERSION,
	};

	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static long kdt_ioctl_run(struct kdt_run __user *arg)
{
	struct kdt_run *run;
	long err;

	run = memdup_user(arg, sizeof(*run));
	if (IS_ERR(run))
		return PTR_ERR(run);
	if (run->abi_major != KDT_ABI_MAJOR) {
		err = -EPROTO;
		goto out;
	}
	if (run->size != sizeof(*run)) {
		err = -EINVAL;
		goto out;
	}
	err = kdt_client_run(run);
	if (!err && copy_to_user(&arg->result, &run->result,
				 sizeof(run->result)))
		err = -EFAULT;
out:
	kfree(run);
	return err;
}

static long kdt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case KDT_IOC_VERSION:
		return kdt_ioctl_version((void __user *)arg);
	case KDT_IOC_RUN:
		return kdt_ioctl_run((struct kdt_run __user *)arg);
	}
	return -ENOTTY;
}

static const struct file_operations kdt_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = kdt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice kdt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kdapltest",
	.fops = &kdt_fops,
	.mode = 0600,
};

static int __init kdt_init(void)
{
	return misc_register(&kdt_misc);
}

static void __exit kdt_exit(void)
{
	misc_deregister(&kdt_misc);
}

module_init(kdt_init);
module_exit(kdt_exit);

MODULE_DESCRIPTION("kdapltest: OFA dapltest's tests over kDAPL");
MODULE_LICENSE("GPL");
