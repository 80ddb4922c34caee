// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: the runs made of cases, dapltest's limit test (-T L,
 * limit.c) and its function feature tests (-T F, fft.c). Both run in
 * the caller's KDT_IOC_RUN, one case after the other, and answer per
 * case in the caller's struct kdt_cases (uapi/kdapltest.h): a verdict,
 * the DAT_RETURN that decided it, counts and a message.
 *
 * A case passes unless one of its checks fails; the first failure is
 * the one reported. A case that does not apply to kDAPL (a CNO, say) is
 * skipped with the reason, never passed.
 */

#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kdt.h"

static const char *const kdt_verdicts[] = {
	[KDT_CASE_PASS] = "PASS",
	[KDT_CASE_FAIL] = "FAIL",
	[KDT_CASE_SKIP] = "SKIP",
};

/**
 * kdt_case_wanted() - is case @index selected?
 * @cr: the run
 * @index: KDT_LIM_* or an FFT case number
 *
 * Return: true when the caller selected it, or selected nothing (all).
 */
bool kdt_case_wanted(const struct kdt_cases_run *cr, u32 index)
{
	return !cr->c->select || (index < 32 && (cr->c->select & BIT(index)));
}

/**
 * kdt_case_begin() - start the next case
 * @cr: the run; the caller ends the case with kdt_case_end()
 * @index: KDT_LIM_* or the FFT case number
 * @name: its name (limit_ia, case0, ...)
 * @desc: what it does
 */
void kdt_case_begin(struct kdt_cases_run *cr, u32 index, const char *name,
		    const char *desc)
{
	struct kdt_case_result *r;

	if (cr->c->num >= KDT_CASES_MAX) {
		cr->r = NULL;
		return;
	}
	r = &cr->c->result[cr->c->num];
	memset(r, 0, sizeof(*r));
	r->index = index;
	r->verdict = KDT_CASE_PASS;
	strscpy(r->name, name, sizeof(r->name));
	strscpy(r->desc, desc, sizeof(r->desc));
	cr->r = r;
	cr->start_ns = ktime_get_ns();
	if (cr->debug)
		pr_info("kdapltest: %s: %s\n", name, desc);
}

static __printf(3, 0) void kdt_case_vmsg(struct kdt_cases_run *cr,
					  u32 verdict, const char *fmt,
					  va_list ap)
{
	struct kdt_case_result *r = cr->r;

	if (!r || r->verdict == KDT_CASE_FAIL)
		return;	/* the first failure stays */
	r->verdict = verdict;
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
}

/**
 * kdt_case_fail() - the case in progress failed
 * @cr: the run
 * @ret: the DAT_RETURN that made it fail (DAT_SUCCESS if none did)
 * @fmt: why
 *
 * Only the first failure of a case is kept.
 */
void kdt_case_fail(struct kdt_cases_run *cr, DAT_RETURN ret,
		   const char *fmt, ...)
{
	va_list ap;

	if (!cr->r || cr->r->verdict == KDT_CASE_FAIL)
		return;
	cr->r->dat_status = ret;
	va_start(ap, fmt);
	kdt_case_vmsg(cr, KDT_CASE_FAIL, fmt, ap);
	va_end(ap);
}

/**
 * kdt_case_skip() - the case does not apply to kDAPL
 * @cr: the run
 * @fmt: why
 */
void kdt_case_skip(struct kdt_cases_run *cr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kdt_case_vmsg(cr, KDT_CASE_SKIP, fmt, ap);
	va_end(ap);
}

/**
 * kdt_case_note() - what a passing case found (limit counts, ...)
 * @cr: the run
 * @fmt: the text; a failure, if any, stays the message
 */
void kdt_case_note(struct kdt_cases_run *cr, const char *fmt, ...)
{
	va_list ap;

	if (!cr->r || cr->r->verdict != KDT_CASE_PASS)
		return;
	va_start(ap, fmt);
	vsnprintf(cr->r->message, sizeof(cr->r->message), fmt, ap);
	va_end(ap);
}

/**
 * kdt_case_failed() - has the case in progress failed?
 * @cr: the run
 *
 * Return: true once a check of the case failed.
 */
bool kdt_case_failed(const struct kdt_cases_run *cr)
{
	return cr->r && cr->r->verdict == KDT_CASE_FAIL;
}

/**
 * kdt_case_expect() - check a DAT_RETURN
 * @cr: the run
 * @got: what the call returned
 * @want: what kDAPL documents for it: DAT_SUCCESS, a type alone (any
 *	subtype is fine), or a type with its subtype (exactly that)
 * @what: the call, for the message
 *
 * Records a failure if @got is not @want, and @got as the case's DAT
 * status when @want is an error (or the check failed).
 *
 * Return: true if @got is @want.
 */
bool kdt_case_expect(struct kdt_cases_run *cr, DAT_RETURN got,
		     DAT_RETURN want, const char *what)
{
	const char *gmaj = "?", *gmin = "", *wmaj = "?", *wmin = "";
	bool ok;

	if (DAT_GET_SUBTYPE(want))
		ok = got == want;
	else
		ok = DAT_GET_TYPE(got) == DAT_GET_TYPE(want);
	/* the answers worth reporting: the errors a case provokes */
	if (cr->r && cr->r->verdict != KDT_CASE_FAIL &&
	    (want != DAT_SUCCESS || !ok))
		cr->r->dat_status = got;
	if (ok)
		return true;
	dat_strerror(got, &gmaj, &gmin);
	dat_strerror(want, &wmaj, &wmin);
	kdt_case_fail(cr, got, "%s: %s %s (%#x), expected %s %s", what, gmaj,
		      gmin, got, wmaj, DAT_GET_SUBTYPE(want) ? wmin : "");
	return false;
}

/**
 * kdt_case_end() - end the case in progress
 * @cr: the run
 */
void kdt_case_end(struct kdt_cases_run *cr)
{
	struct kdt_case_result *r = cr->r;

	if (!r)
		return;
	r->time_us = div_u64(ktime_get_ns() - cr->start_ns, NSEC_PER_USEC);
	cr->c->num++;
	cr->run->result.tests_done++;
	if (r->verdict == KDT_CASE_FAIL)
		cr->run->result.tests_failed++;
	if (r->verdict == KDT_CASE_FAIL || cr->debug)
		pr_info("kdapltest: %s: %s%s%s\n", r->name,
			kdt_verdicts[r->verdict], r->message[0] ? ": " : "",
			r->message);
	cr->r = NULL;
}

/**
 * kdt_evd_wait_us() - dat_evd_wait() as kDAPL has it
 * @e: an EVD of kdt_evd_kcreate(), whose upcall bumps e->seq
 * @timeout_us: microseconds, as dat_evd_wait()'s timeout
 * @ev: the event
 *
 * kDAPL has no dat_evd_wait(): this dequeues, and sleeps until the
 * upcall says more came. e->seq is read before the dequeue so that an
 * event in between is not slept through.
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS with the next event in @ev, DAT_TIMEOUT_EXPIRED
 * after @timeout_us (or on a fatal signal), or what dat_evd_dequeue()
 * answered other than DAT_QUEUE_EMPTY.
 */
DAT_RETURN kdt_evd_wait_us(struct kdt_evd *e, u64 timeout_us, DAT_EVENT *ev)
{
	u64 end = ktime_get_ns() + timeout_us * NSEC_PER_USEC;
	DAT_RETURN ret;
	u64 now;
	int seq;

	for (;;) {
		seq = atomic_read(&e->seq);
		ret = dat_evd_dequeue(e->h, ev);
		if (DAT_GET_TYPE(ret) != DAT_QUEUE_EMPTY)
			return ret;
		now = ktime_get_ns();
		if (now >= end || fatal_signal_pending(current))
			return DAT_ERROR(DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
		wait_event_timeout(e->wq, atomic_read(&e->seq) != seq,
				   nsecs_to_jiffies(end - now) + 1);
	}
}

static const char *kdt_cases_check(const struct kdt_run *run,
				   const struct kdt_cases *c)
{
	if (run->test_type == KDT_RUN_LIMIT) {
		if (!c->width || c->width > KDT_LIMIT_WIDTH_MAX)
			return "-w: the width is 1 to " __stringify(KDT_LIMIT_WIDTH_MAX);
		if (!c->maximum)
			return "-m: the maximum is at least 1";
		if (c->select & ~(BIT(KDT_LIM_NUM) - 1))
			return "unknown limit test";
		return NULL;
	}
	if (c->feature >= KDT_FFT_NUM)
		return "-f: unknown function feature";
	return NULL;
}

/**
 * kdt_cases_ioctl() - KDT_IOC_RUN of a -T L or -T F run
 * @run: the caller's run, copied in; result filled here
 * @f: the open file
 *
 * Reads the caller's struct kdt_cases (run->cases), runs the cases it
 * selects and writes it back with their results.
 *
 * Context: process context, the caller's ioctl; sleeps.
 * Return: 0 (run->result says how the run went), or -EINVAL for a
 * struct kdt_cases of another size, -EFAULT, -ENOMEM.
 */
int kdt_cases_ioctl(struct kdt_run *run, struct kdt_file *f)
{
	void __user *uc = u64_to_user_ptr(run->cases);
	struct kdt_cases_run cr = { .run = run };
	const char *why;
	int err = 0;

	if (run->cases_size != sizeof(struct kdt_cases))
		return -EINVAL;
	cr.c = memdup_user(uc, sizeof(*cr.c));
	if (IS_ERR(cr.c))
		return PTR_ERR(cr.c);
	if (cr.c->size != sizeof(*cr.c)) {
		err = -EINVAL;
		goto out;
	}
	cr.c->num = 0;
	cr.debug = !!(run->flags & KDT_RUN_DEBUG);
	why = kdt_cases_check(run, cr.c);
	if (why) {
		run->result.status = -EINVAL;
		strscpy(run->result.message, why, sizeof(run->result.message));
	} else {
		if (run->test_type == KDT_RUN_LIMIT)
			kdt_limit_run(&cr);
		else
			kdt_fft_run(&cr);
		if (run->result.tests_failed)
			run->result.status = -EIO;
		snprintf(run->result.message, sizeof(run->result.message),
			 "%u cases run, %u failed", run->result.tests_done,
			 run->result.tests_failed);
	}
	if (copy_to_user(uc, cr.c, sizeof(*cr.c)))
		err = -EFAULT;
out:
	kfree(cr.c);
	return err;
}
