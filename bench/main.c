// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: command interface (debugfs), parsing and output.
 *
 * /sys/kernel/debug/kdapl_bench/ctl
 *   write: one command, run to completion inside the write();
 *          the write returns the command's length or its error
 *   read:  the output of the last command, one "<figure> <value>" a line
 *
 * Commands (words after the verb are key=value):
 *   respond ia=<dev> port=<n> the responder, passive end of the data
 *                             tests, on <dev> (a PSP, resp.c); from a
 *                             task in <dev>'s network namespace; it may
 *                             be in another guest than the test;
 *                             cpu=N: its ends' EVDs are created on
 *                             CPU N
 *   respond tcp port=<n>      the TCP responder (tresp.c), passive end
 *                             of the TCP tests, in the caller's namespace
 *   unrespond                 stop every responder ("<dev>.served <n>",
 *                             "tcp.served <n>")
 *   serve ia=<dev> port=<n>   passive end of the DAT setup tests (conn,
 *                             sconn) on <dev>; the same namespace rule
 *   serve tcp port=<n>        a listening kernel TCP socket in the
 *                             caller's namespace (sconn's TCP connections)
 *   unserve                   free everything "serve" made
 *   dat test=write|read|send|lat ia_a= addr= port= size= depth= conns=
 *       ms= rounds= reps= warm= signal= cpu= work= tag=  (to the
 *                             responder at addr:port; signal=N: every
 *                             Nth signaled; cpu=N: the active end's
 *                             EVDs are created on CPU N; work=N: N us
 *                             of busy work per DTO event of a stream)
 *   dat test=conn|sconn ia_a= ia_b= addr= port= rounds= reps= tag=
 *   tcp test=stream|lat|conn addr= port= size= ms= rounds= reps= warm=
 *       tag=                  (to the TCP responder at addr:port)
 *   verbs test=lat ia_a= ia_b= addr= port= size= rounds= reps= warm=
 *       vec_a= vec_b= signal= tag=  (the CQs' vectors, modulo the
 *                             device's; every Nth send signaled)
 *   stress test=soak|reset|churn|spfree|faults|faults_sconn|many|many_ssp
 *       ia_a= ia_b= addr= port= size= conns= depth= ms= rounds= lossy=
 *       hold= wait= tag=      make stress's checked workloads, both
 *                             ends here (stress.c, many.c); fails on
 *                             any wrong byte, error or missing event
 *                             (wait=: ms for one event of a soak, by
 *                             default BENCH_WAIT_MS);
 *                             conns= up to BENCH_MAX_STRESS_CONNS
 *   calib rounds= tag=        ns per lock section, irq/bh toggle,
 *                             atomic and clock read (calib.c)
 * Every measured data run also reports its CPU cost (cost.c).
 * Documentation/performance.rst describes what each test measures.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "bench.h"
#include "dat.h"

/* A ping-pong run's histogram takes up to ~8 KiB of lines: 20 runs fit. */
#define BENCH_OUT_SIZE	(256 * 1024)
#define BENCH_CMD_MAX	512

/* Serializes commands; protects bench_out and bench_outbuf. */
static DEFINE_MUTEX(bench_mutex);
static char *bench_outbuf;
struct seq_buf bench_out;
static struct dentry *bench_dir;

/**
 * bench_emit() - append one figure to the command's output
 * @tag: the command's tag
 * @what: the figure within it, or "" for the tag alone
 * @milli: the value times 1000
 *
 * Context: process context, bench_mutex held.
 */
void bench_emit(const char *tag, const char *what, u64 milli)
{
	seq_buf_printf(&bench_out, "%s%s%s %llu.%03llu\n", tag,
		       *what ? "." : "", what, milli / 1000, milli % 1000);
}

/* sort()'s comparison of two u64, ascending (calib.c too). */
int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sub-buckets per power of two of the round trip histogram (~3 %). */
#define BENCH_HIST_SUB_SHIFT	5

/*
 * The histogram bucket of @ns: [*lo, *hi], 2^BENCH_HIST_SUB_SHIFT buckets
 * per power of two, so a bucket is at most 1/32 of its values wide.
 */
static void bench_hist_bucket(u64 ns, u64 *lo, u64 *hi)
{
	int e = fls64(ns) - 1;
	u64 width;

	width = e > BENCH_HIST_SUB_SHIFT ? 1ULL << (e - BENCH_HIST_SUB_SHIFT) :
		1;
	*lo = ns & ~(width - 1);
	*hi = *lo + width - 1;
}

static u64 pct(const u64 *sorted, u32 n, u32 per_mille)
{
	return sorted[min_t(u32, n - 1, (u64)n * per_mille / 1000)];
}

/**
 * bench_emit_lat() - percentiles and histogram of round trip times
 * @tag: the command's tag
 * @ns: @n samples in nanoseconds; sorted in place
 * @n: number of samples, > 0
 *
 * Emits "<tag>.median", ".p90", ".p99", ".p999" in microseconds,
 * "<tag>.stalls" (round trips over 1 ms) and one "<tag>.hist.<lo>_<hi>
 * <count>" per non-empty bucket (bounds in ns, inclusive), from which
 * the host pools the percentiles of every run's samples.
 */
void bench_emit_lat(const char *tag, u64 *ns, u32 n)
{
	char what[48];
	u64 lo = 0, hi = 0, blo = 0, bhi = 0;
	u32 i, first = 0, stalls = 0;

	sort(ns, n, sizeof(*ns), bench_cmp_u64, NULL);
	bench_emit(tag, "median", ns[n / 2]);
	bench_emit(tag, "p90", pct(ns, n, 900));
	bench_emit(tag, "p99", pct(ns, n, 990));
	bench_emit(tag, "p999", pct(ns, n, 999));
	for (i = 0; i < n; i++)
		stalls += ns[i] > NSEC_PER_MSEC;
	bench_emit(tag, "stalls", (u64)stalls * 1000);
	/* sorted: a bucket's samples are one run; emit each run at its end */
	for (i = 0; i <= n; i++) {
		if (i < n) {
			bench_hist_bucket(ns[i], &lo, &hi);
			if (i && lo == blo)
				continue;
		}
		if (i) {
			snprintf(what, sizeof(what), "hist.%llu_%llu", blo,
				 bhi);
			bench_emit(tag, what, (u64)(i - first) * 1000);
		}
		first = i;
		blo = lo;
		bhi = hi;
	}
}

/**
 * bench_warm_ms() - length of a throughput command's warm-up run
 * @c: the command
 */
u32 bench_warm_ms(const struct bench_cmd *c)
{
	return c->warm ?: max(c->ms / 4, 100U);
}

/**
 * bench_warm_rounds() - round trips of a ping-pong command's warm-up run
 * @c: the command
 */
u32 bench_warm_rounds(const struct bench_cmd *c)
{
	return c->warm ? min(c->warm, c->rounds) : c->rounds;
}

/**
 * bench_rate_milli() - events per second, times 1000
 * @count: events
 * @ns: over this many nanoseconds
 */
u64 bench_rate_milli(u64 count, u64 ns)
{
	if (!ns)
		return 0;
	/* count * 1e12 / ns without overflow for count < 2^34 */
	return div64_u64(count * 1000000ULL, div64_u64(ns, 1000) ?: 1) *
		1000;
}

static int parse_u32(const char *v, u32 *out)
{
	return kstrtou32(v, 0, out);
}

/* The command's plain numeric keys. */
static const struct {
	const char *key;
	size_t off;
} bench_u32_keys[] = {
	{ "size", offsetof(struct bench_cmd, size) },
	{ "depth", offsetof(struct bench_cmd, depth) },
	{ "conns", offsetof(struct bench_cmd, conns) },
	{ "ms", offsetof(struct bench_cmd, ms) },
	{ "rounds", offsetof(struct bench_cmd, rounds) },
	{ "reps", offsetof(struct bench_cmd, reps) },
	{ "warm", offsetof(struct bench_cmd, warm) },
	{ "vec_a", offsetof(struct bench_cmd, vec_a) },
	{ "vec_b", offsetof(struct bench_cmd, vec_b) },
	{ "cpu", offsetof(struct bench_cmd, cpu) },
	{ "signal", offsetof(struct bench_cmd, signal) },
	{ "work", offsetof(struct bench_cmd, work) },
	{ "lossy", offsetof(struct bench_cmd, lossy) },
	{ "hold", offsetof(struct bench_cmd, hold) },
	{ "wait", offsetof(struct bench_cmd, wait) },
};

/* @key=@v for one of bench_u32_keys; -EINVAL for an unknown key. */
static int parse_u32_key(struct bench_cmd *c, const char *key, const char *v)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(bench_u32_keys); i++)
		if (!strcmp(key, bench_u32_keys[i].key))
			return parse_u32(v, (u32 *)((u8 *)c +
						    bench_u32_keys[i].off));
	return -EINVAL;
}

static int bench_parse(char *line, struct bench_cmd *c)
{
	char *w, *v;
	u32 port;
	int err = 0;

	memset(c, 0, sizeof(*c));
	c->port = 7000;
	c->size = 4096;
	c->depth = 16;
	c->conns = 1;
	c->ms = 1000;
	c->rounds = 1000;
	c->reps = 5;
	c->cpu = BENCH_CPU_ANY;
	strscpy(c->tag, "bench", sizeof(c->tag));

	line = strim(line);
	w = strsep(&line, " \t");
	if (!w || !*w)
		return -EINVAL;
	strscpy(c->verb, w, sizeof(c->verb));
	while (!err && (w = strsep(&line, " \t"))) {
		if (!*w)
			continue;
		v = strchr(w, '=');
		if (!v) {
			/* "serve tcp": a bare word is the test */
			strscpy(c->test, w, sizeof(c->test));
			continue;
		}
		*v++ = '\0';
		if (!strcmp(w, "test"))
			strscpy(c->test, v, sizeof(c->test));
		else if (!strcmp(w, "ia") || !strcmp(w, "ia_b"))
			strscpy(c->ia_b, v, sizeof(c->ia_b));
		else if (!strcmp(w, "ia_a"))
			strscpy(c->ia_a, v, sizeof(c->ia_a));
		else if (!strcmp(w, "addr"))
			strscpy(c->addr_b, v, sizeof(c->addr_b));
		else if (!strcmp(w, "tag"))
			strscpy(c->tag, v, sizeof(c->tag));
		else if (!strcmp(w, "port"))
			err = parse_u32(v, &port) ?: (port > 65535 ? -ERANGE :
						      (c->port = port, 0));
		else
			err = parse_u32_key(c, w, v);
	}
	if (err)
		return err;
	if (!c->size || c->size > BENCH_MAX_SIZE || !c->depth ||
	    c->depth > 64 || !c->conns ||
	    c->conns > (strcmp(c->verb, "stress") ? BENCH_MAX_CONNS :
			BENCH_MAX_STRESS_CONNS) ||
	    !c->reps || c->reps > BENCH_MAX_REPS || !c->rounds ||
	    c->rounds > BENCH_MAX_ROUNDS || !c->ms ||
	    c->ms > (strcmp(c->verb, "stress") ? 60000 : 600000) ||
	    c->warm > 60000 || c->signal > BENCH_MAX_SIGNAL ||
	    c->work > BENCH_MAX_WORK_US ||
	    c->hold > 600000 || c->wait > 600000)
		return -ERANGE;
	if (c->cpu != BENCH_CPU_ANY &&
	    (c->cpu >= nr_cpu_ids || !cpu_online(c->cpu)))
		return -ERANGE;
	return 0;
}

/*
 * Run @fn with the calling task on @c->cpu, if the command names one, and
 * give the task its own CPUs back afterwards.
 */
static int bench_pinned(const struct bench_cmd *c,
			int (*fn)(const struct bench_cmd *c))
{
	cpumask_var_t saved;
	int err;

	if (c->cpu == BENCH_CPU_ANY)
		return fn(c);
	if (!alloc_cpumask_var(&saved, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(saved, &current->cpus_mask);
	err = set_cpus_allowed_ptr(current, cpumask_of(c->cpu));
	if (!err)
		err = fn(c);
	if (set_cpus_allowed_ptr(current, saved))
		pr_warn("%s: could not give the writer its CPUs back\n",
			c->tag);
	free_cpumask_var(saved);
	return err;
}

static int bench_exec(struct bench_cmd *c)
{
	if (!strcmp(c->verb, "serve")) {
		if (!strcmp(c->test, "tcp"))
			return bench_tcp_serve(c->port);
		return bench_dat_serve(c->ia_b, c->port);
	}
	if (!strcmp(c->verb, "respond")) {
		if (!strcmp(c->test, "tcp"))
			return bench_tresp_start(c->port);
		return bench_resp_start(c->ia_b, c->port, c->cpu);
	}
	if (!strcmp(c->verb, "unrespond")) {
		bench_resp_stop();
		bench_tresp_stop();
		return 0;
	}
	if (!strcmp(c->verb, "unserve")) {
		bench_dat_unserve();
		bench_tcp_unserve();
		return 0;
	}
	if (!strcmp(c->verb, "dat"))
		return bench_pinned(c, bench_dat_run);
	if (!strcmp(c->verb, "tcp"))
		return bench_tcp_run(c);
	if (!strcmp(c->verb, "verbs"))
		return bench_verbs_run(c);
	if (!strcmp(c->verb, "stress"))
		return bench_stress_run(c);
	if (!strcmp(c->verb, "calib"))
		return bench_calib_run(c);
	return -EINVAL;
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	struct bench_cmd *c;
	char *line;
	int err;

	if (len >= BENCH_CMD_MAX)
		return -E2BIG;
	line = memdup_user_nul(ubuf, len);
	if (IS_ERR(line))
		return PTR_ERR(line);
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		kfree(line);
		return -ENOMEM;
	}
	err = bench_parse(line, c);
	if (!err) {
		mutex_lock(&bench_mutex);
		seq_buf_init(&bench_out, bench_outbuf, BENCH_OUT_SIZE);
		err = bench_exec(c);
		if (!err && seq_buf_has_overflowed(&bench_out))
			err = -EOVERFLOW;	/* figures lost: a failure */
		if (err)
			seq_buf_printf(&bench_out, "# %s %s: error %d\n",
				       c->verb, c->tag, err);
		mutex_unlock(&bench_mutex);
	}
	if (err)
		pr_warn("command \"%s %s\" (%s) failed: %d\n", c->verb,
			c->test, c->tag, err);
	kfree(c);
	kfree(line);
	return err ?: len;
}

static ssize_t ctl_read(struct file *f, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_mutex);
	ret = simple_read_from_buffer(ubuf, len, ppos, bench_outbuf,
				      seq_buf_used(&bench_out));
	mutex_unlock(&bench_mutex);
	return ret;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.read = ctl_read,
	.llseek = default_llseek,
};

static int __init bench_init(void)
{
	bench_outbuf = kvzalloc(BENCH_OUT_SIZE, GFP_KERNEL);
	if (!bench_outbuf)
		return -ENOMEM;
	seq_buf_init(&bench_out, bench_outbuf, BENCH_OUT_SIZE);
	bench_dir = debugfs_create_dir("kdapl_bench", NULL);
	bench_cost_init();	/* before any command can run */
	debugfs_create_file("ctl", 0600, bench_dir, NULL, &ctl_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	mutex_lock(&bench_mutex);
	bench_resp_stop();
	bench_tresp_stop();
	bench_dat_unserve();
	bench_tcp_unserve();
	mutex_unlock(&bench_mutex);
	bench_cost_exit();
	kvfree(bench_outbuf);
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("kdapl benchmarks: kDAPL over kiwarp and siw, raw verbs, kernel TCP");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KDAPL_INTERNAL);	/* kdapl_evd_pending(): lost upcalls */
