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

/**
 * kdt_file_error() - remember the last error for KDT_IOC_STATUS
 * @f: the open file
 * @msg: the message
 */
void kdt_file_error(struct kdt_file *f, const char *msg)
{
	spin_lock(&f->lock);
	strscpy(f->last_error, msg, sizeof(f->last_error));
	spin_unlock(&f->lock);
}

static long kdt_ioctl_run(struct kdt_file *f, struct kdt_run __user *arg)
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
	/* one run at a time per open file: the counters are the run's */
	if (atomic_cmpxchg(&f->state, KDT_STATE_IDLE, KDT_STATE_RUNNING) !=
	    KDT_STATE_IDLE) {
		err = -EBUSY;
		goto out;
	}
	atomic_set(&f->tests_done, 0);
	atomic_set(&f->tests_failed, 0);
	atomic_set(&f->tests_running, 0);
	atomic_set(&f->rejected, 0);
	atomic64_set(&f->wqes, 0);
	atomic64_set(&f->wqes_total, 0);
	f->port = 0;
	kdt_file_error(f, "");

	run->ia_name[sizeof(run->ia_name) - 1] = '\0';
	run->server_name[sizeof(run->server_name) - 1] = '\0';
	memset(&run->result, 0, sizeof(run->result));
	switch (run->test_type) {
	case KDT_RUN_SERVER:
		err = kdt_server_run(run, f);
		break;
	case KDT_RUN_TRANSACTION:
	case KDT_RUN_PERFORMANCE:
	case KDT_RUN_QUIT:
		err = kdt_client_run(run, f);
		break;
	case KDT_RUN_LIMIT:
	case KDT_RUN_FFT:
		err = kdt_cases_ioctl(run, f);
		break;
	default:
		run->result.status = -EOPNOTSUPP;
		snprintf(run->result.message, sizeof(run->result.message),
			 "test type %u (%s) is not implemented in the kernel yet",
			 run->test_type, kdt_test_type_name(run->test_type));
		err = 0;
		break;
	}
	atomic_set(&f->state, KDT_STATE_IDLE);
	if (!err && copy_to_user(&arg->result, &run->result,
				 sizeof(run->result)))
		err = -EFAULT;
out:
	kfree(run);
	return err;
}

static long kdt_ioctl_status(struct kdt_file *f, void __user *arg)
{
	struct kdt_status st = {
		.state = atomic_read(&f->state),
		.port = f->port,
		.tests_done = atomic_read(&f->tests_done),
		.tests_failed = atomic_read(&f->tests_failed),
		.tests_running = atomic_read(&f->tests_running),
		.rejected = atomic_read(&f->rejected),
		.wqes = atomic64_read(&f->wqes),
		.wqes_total = atomic64_read(&f->wqes_total),
	};

	spin_lock(&f->lock);
	strscpy(st.last_error, f->last_error, sizeof(st.last_error));
	spin_unlock(&f->lock);
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static long kdt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct kdt_file *f = file->private_data;

	switch (cmd) {
	case KDT_IOC_VERSION:
		return kdt_ioctl_version((void __user *)arg);
	case KDT_IOC_RUN:
		return kdt_ioctl_run(f, (struct kdt_run __user *)arg);
	case KDT_IOC_STATUS:
		return kdt_ioctl_status(f, (void __user *)arg);
	}
	return -ENOTTY;
}

static int kdt_open(struct inode *inode, struct file *file)
{
	struct kdt_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	spin_lock_init(&f->lock);
	atomic_set(&f->state, KDT_STATE_IDLE);
	file->private_data = f;
	return 0;
}

/* No run is left: KDT_IOC_RUN holds the file until it returns. */
static int kdt_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations kdt_fops = {
	.owner = THIS_MODULE,
	.open = kdt_open,
	.release = kdt_release,
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
	/* minor 1 took reserved2[1..4]: the layout of minor 0 stays */
	BUILD_BUG_ON(offsetof(struct kdt_run, cases) != 192);
	BUILD_BUG_ON(offsetof(struct kdt_run, ops) != 208);
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
MODULE_IMPORT_NS(KDAPL_INTERNAL);	/* kdapl_evd_pending(): the lost-wakeup check */
