// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: dapltest's limit test (-T L) over kDAPL
 * (Documentation/kdapltest.rst).
 *
 * Each limit test builds what the object it exhausts needs - @width
 * "object sets" of an IA, a PZ, EVDs, an EP and a registered buffer, as
 * far as needed - then creates as many of its object as kDAPL allows,
 * @maximum at most, and frees them all again. As in dapltest the sets
 * are used round robin. kDAPL has no CNOs: there is no limit_cno.
 *
 * What each test checks, beyond dapltest (which only prints counts):
 * the creation that stopped short of @maximum must have answered
 * DAT_INSUFFICIENT_RESOURCES, kDAPL's answer when a resource runs out,
 * and come after at least one success; every free must succeed; and
 * the sets' IAs must then close gracefully, which kDAPL refuses while
 * anything created on them is left. limit_rpost also checks that an EP
 * took the max_recv_dtos its attributes promise and that every posted
 * receive comes back flushed when the EP is freed.
 */

#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kdt.h"

#define KDT_LIM_QLEN	256	/* the sets' EVDs: room for every flush */
#define KDT_LIM_BUF	4096	/* dapltest's DFLT_BUFFSZ */
#define KDT_LIM_PORT	50000	/* the first port of limit_psp, limit_rsp */
#define KDT_LIM_PORTS	(65536 - KDT_LIM_PORT)
#define KDT_LIM_LMR_CAP	(64ULL << 20)	/* limit_size_lmr stops here */
/* kDAPL's answer once a resource runs out */
#define KDT_ENOUGH	"DAT_INSUFFICIENT_RESOURCES"
#define KDT_LIM_FLUSH_US (5 * USEC_PER_SEC)

/* One of dapltest's object sets, what a limit test builds on. */
struct kdt_lim_set {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	struct kdt_evd evd;	/* DTO, CR and RMR bind events */
	struct kdt_evd conn;	/* connection events of the EPs */
	DAT_EP_HANDLE ep;
	u8 *buf;		/* KDT_LIM_BUF bytes, registered: */
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_VADDR addr;
};

/* One object a limit test created. */
struct kdt_lim_obj {
	DAT_HANDLE h;
	DAT_HANDLE h2;		/* limit_ia: its async EVD; limit_rsp: its EP */
	void *buf;		/* limit_lmr: the registered memory */
};

struct kdt_limit {
	struct kdt_cases_run *cr;
	char *ia_name;
	u32 width;
	u32 maximum;		/* -m, at most KDT_LIMIT_CAP */
	struct kdt_lim_set *sets;
};

/* How a limit test makes and frees its objects */
struct kdt_lim_ops {
	const char *what;	/* "IAs opened" ... */
	u32 cap;		/* at most this many, whatever -m says */
	/* both answer a DAT_RETURN (a u32) */
	u32 (*create)(struct kdt_limit *l, struct kdt_lim_set *s, u32 n,
		      struct kdt_lim_obj *o);
	u32 (*destroy)(struct kdt_lim_obj *o);
};

static const struct {
	const char *name;
	const char *desc;
} kdt_lim_names[KDT_LIM_NUM] = {
	[KDT_LIM_IA] = { "limit_ia", "max num of opens for the same physical IA" },
	[KDT_LIM_PZ] = { "limit_pz", "max num of PZs that are supported by an IA" },
	[KDT_LIM_EVD] = { "limit_evd", "max num of EVDs that are supported by an IA" },
	[KDT_LIM_EP] = { "limit_ep", "max num of EPs that are supported by an IA" },
	[KDT_LIM_RSP] = { "limit_rsp", "max num of RSPs that are supported by an IA" },
	[KDT_LIM_PSP] = { "limit_psp", "max num of PSPs that are supported by an IA" },
	[KDT_LIM_LMR] = { "limit_lmr", "max num of LMRs that are supported by an IA" },
	[KDT_LIM_RPOST] = { "limit_rpost", "max num of receive buffers posted to an EP" },
	[KDT_LIM_SIZE_LMR] = { "limit_size_lmr", "max size of LMRs that are supported by an IA" },
};

static const char *kdt_str(DAT_RETURN ret)
{
	const char *major = "?", *minor = "";

	dat_strerror(ret, &major, &minor);
	return major;
}

/* ------------------------------------------------------------------ */
/* The object sets                                                     */
/* ------------------------------------------------------------------ */

static bool kdt_lim_set_build(struct kdt_limit *l, struct kdt_lim_set *s,
			      u32 depth, u32 w)
{
	struct kdt_cases_run *cr = l->cr;
	DAT_REGION_DESCRIPTION region;
	DAT_RETURN ret;
	DAT_VLEN len;

	s->async = DAT_HANDLE_NULL;
	ret = dat_ia_open(l->ia_name, 10, &s->async, &s->ia);
	if (ret != DAT_SUCCESS) {
		s->ia = DAT_HANDLE_NULL;
		kdt_case_fail(cr, ret, "set %u: dat_ia_open(%s): %s (%#x)", w,
			      l->ia_name, kdt_str(ret), ret);
		return false;
	}
	if (depth <= KDT_LIM_PZ)
		return true;
	ret = dat_pz_create(s->ia, &s->pz);
	if (ret != DAT_SUCCESS) {
		s->pz = DAT_HANDLE_NULL;
		kdt_case_fail(cr, ret, "set %u: dat_pz_create: %s (%#x)", w,
			      kdt_str(ret), ret);
		return false;
	}
	if (depth <= KDT_LIM_EVD)
		return true;
	/* dapltest shares one connection EVD; kDAPL's EVDs are per IA */
	ret = kdt_evd_kcreate(s->ia, KDT_LIM_QLEN, DAT_EVD_DTO_FLAG |
			      DAT_EVD_CR_FLAG | DAT_EVD_RMR_BIND_FLAG, &s->evd);
	if (ret != DAT_SUCCESS)
		s->evd.h = DAT_HANDLE_NULL;
	else
		ret = kdt_evd_kcreate(s->ia, 10, DAT_EVD_CONNECTION_FLAG,
				      &s->conn);
	if (ret != DAT_SUCCESS) {
		s->conn.h = DAT_HANDLE_NULL;
		kdt_case_fail(cr, ret, "set %u: dat_evd_kcreate: %s (%#x)", w,
			      kdt_str(ret), ret);
		return false;
	}
	if (depth <= KDT_LIM_EP)
		return true;
	ret = dat_ep_create(s->ia, s->pz, s->evd.h, s->evd.h, s->conn.h, NULL,
			    &s->ep);
	if (ret != DAT_SUCCESS) {
		s->ep = DAT_HANDLE_NULL;
		kdt_case_fail(cr, ret, "set %u: dat_ep_create: %s (%#x)", w,
			      kdt_str(ret), ret);
		return false;
	}
	if (depth <= KDT_LIM_LMR)
		return true;
	s->buf = kzalloc(KDT_LIM_BUF, GFP_KERNEL);
	if (!s->buf) {
		kdt_case_fail(cr, DAT_SUCCESS, "set %u: no memory", w);
		return false;
	}
	region.for_va = s->buf;
	ret = dat_lmr_kcreate(s->ia, DAT_MEM_TYPE_VIRTUAL, region, KDT_LIM_BUF,
			      s->pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
			      DAT_MEM_OPTIMIZE_DONT_CARE, &s->lmr, &s->lctx,
			      NULL, &len, &s->addr);
	if (ret != DAT_SUCCESS) {
		s->lmr = DAT_HANDLE_NULL;
		kdt_case_fail(cr, ret, "set %u: dat_lmr_kcreate: %s (%#x)", w,
			      kdt_str(ret), ret);
		return false;
	}
	if (len != KDT_LIM_BUF || s->addr != (DAT_VADDR)(uintptr_t)s->buf) {
		kdt_case_fail(cr, ret, "set %u: registered %llu bytes at %#llx",
			      w, (unsigned long long)len,
			      (unsigned long long)s->addr);
		return false;
	}
	return true;
}

/* Free what a set holds, checking every answer; the IA closes gracefully. */
static void kdt_lim_set_teardown(struct kdt_limit *l, struct kdt_lim_set *s,
				 u32 w)
{
	struct kdt_cases_run *cr = l->cr;
	DAT_RETURN ret;

	if (s->lmr) {
		ret = dat_lmr_free(s->lmr);
		if (ret != DAT_SUCCESS)
			kdt_case_fail(cr, ret, "set %u: dat_lmr_free: %s (%#x)",
				      w, kdt_str(ret), ret);
	}
	kfree(s->buf);
	if (s->ep) {
		ret = dat_ep_free(s->ep);
		if (ret != DAT_SUCCESS)
			kdt_case_fail(cr, ret, "set %u: dat_ep_free: %s (%#x)",
				      w, kdt_str(ret), ret);
	}
	if (s->conn.h) {
		ret = dat_evd_free(s->conn.h);
		if (ret != DAT_SUCCESS)
			kdt_case_fail(cr, ret, "set %u: dat_evd_free: %s (%#x)",
				      w, kdt_str(ret), ret);
	}
	if (s->evd.h) {
		ret = dat_evd_free(s->evd.h);
		if (ret != DAT_SUCCESS)
			kdt_case_fail(cr, ret, "set %u: dat_evd_free: %s (%#x)",
				      w, kdt_str(ret), ret);
	}
	if (s->pz) {
		ret = dat_pz_free(s->pz);
		if (ret != DAT_SUCCESS)
			kdt_case_fail(cr, ret, "set %u: dat_pz_free: %s (%#x)",
				      w, kdt_str(ret), ret);
	}
	if (!s->ia)
		return;
	/* graceful: refused if anything created on the IA is left */
	ret = dat_ia_close(s->ia, DAT_CLOSE_GRACEFUL_FLAG);
	if (ret != DAT_SUCCESS) {
		kdt_case_fail(cr, ret, "set %u: dat_ia_close (graceful): %s (%#x)",
			      w, kdt_str(ret), ret);
		dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG);
	}
}

/* ------------------------------------------------------------------ */
/* Creating and freeing each kind of object                            */
/* ------------------------------------------------------------------ */

static DAT_RETURN kdt_lim_ia(struct kdt_limit *l, struct kdt_lim_set *s,
			     u32 n, struct kdt_lim_obj *o)
{
	o->h2 = DAT_HANDLE_NULL;	/* an async EVD, please */
	return dat_ia_open(l->ia_name, 10, &o->h2, &o->h);
}

static DAT_RETURN kdt_lim_ia_free(struct kdt_lim_obj *o)
{
	return dat_ia_close(o->h, DAT_CLOSE_GRACEFUL_FLAG);
}

static DAT_RETURN kdt_lim_pz(struct kdt_limit *l, struct kdt_lim_set *s,
			     u32 n, struct kdt_lim_obj *o)
{
	return dat_pz_create(s->ia, &o->h);
}

static DAT_RETURN kdt_lim_pz_free(struct kdt_lim_obj *o)
{
	return dat_pz_free(o->h);
}

static DAT_RETURN kdt_lim_evd(struct kdt_limit *l, struct kdt_lim_set *s,
			      u32 n, struct kdt_lim_obj *o)
{
	DAT_UPCALL_OBJECT none = { };

	return dat_evd_kcreate(s->ia, 10, DAT_UPCALL_DISABLE, &none,
			       DAT_EVD_DTO_FLAG | DAT_EVD_CR_FLAG |
			       DAT_EVD_RMR_BIND_FLAG, &o->h);
}

static DAT_RETURN kdt_lim_evd_free(struct kdt_lim_obj *o)
{
	return dat_evd_free(o->h);
}

static DAT_RETURN kdt_lim_ep(struct kdt_limit *l, struct kdt_lim_set *s,
			     u32 n, struct kdt_lim_obj *o)
{
	return dat_ep_create(s->ia, s->pz, s->evd.h, s->evd.h, s->conn.h, NULL,
			     &o->h);
}

static DAT_RETURN kdt_lim_ep_free(struct kdt_lim_obj *o)
{
	return dat_ep_free(o->h);
}

/* Each RSP needs an EP of its own (o->h2), made first. */
static DAT_RETURN kdt_lim_rsp(struct kdt_limit *l, struct kdt_lim_set *s,
			      u32 n, struct kdt_lim_obj *o)
{
	DAT_RETURN ret;

	ret = dat_ep_create(s->ia, s->pz, s->evd.h, s->evd.h, s->conn.h, NULL,
			    &o->h2);
	if (ret != DAT_SUCCESS)
		return ret;
	ret = dat_rsp_create(s->ia, KDT_LIM_PORT + n, o->h2, s->evd.h, &o->h);
	if (ret != DAT_SUCCESS) {
		DAT_RETURN fret = dat_ep_free(o->h2);

		if (fret != DAT_SUCCESS)
			kdt_case_fail(l->cr, fret,
				      "dat_ep_free of RSP #%u's EP: %s (%#x)",
				      n + 1, kdt_str(fret), fret);
		o->h2 = DAT_HANDLE_NULL;
	}
	return ret;
}

static DAT_RETURN kdt_lim_rsp_free(struct kdt_lim_obj *o)
{
	DAT_RETURN ret = dat_rsp_free(o->h);
	DAT_RETURN ret2 = dat_ep_free(o->h2);

	return ret != DAT_SUCCESS ? ret : ret2;
}

static DAT_RETURN kdt_lim_psp(struct kdt_limit *l, struct kdt_lim_set *s,
			      u32 n, struct kdt_lim_obj *o)
{
	return dat_psp_create(s->ia, KDT_LIM_PORT + n, s->evd.h,
			      DAT_PSP_CONSUMER_FLAG, &o->h);
}

static DAT_RETURN kdt_lim_psp_free(struct kdt_lim_obj *o)
{
	return dat_psp_free(o->h);
}

/* A buffer of its own for each LMR: distinct registrations, as dapltest. */
static DAT_RETURN kdt_lim_lmr(struct kdt_limit *l, struct kdt_lim_set *s,
			      u32 n, struct kdt_lim_obj *o)
{
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_CONTEXT lctx;
	DAT_VADDR addr;
	DAT_RETURN ret;
	DAT_VLEN len;

	o->buf = kzalloc(KDT_LIM_BUF, GFP_KERNEL | __GFP_NOWARN);
	if (!o->buf)
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	region.for_va = o->buf;
	ret = dat_lmr_kcreate(s->ia, DAT_MEM_TYPE_VIRTUAL, region, KDT_LIM_BUF,
			      s->pz, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
			      DAT_MEM_OPTIMIZE_DONT_CARE, &o->h, &lctx, NULL,
			      &len, &addr);
	if (ret != DAT_SUCCESS) {
		kfree(o->buf);
		o->buf = NULL;
		return ret;
	}
	if (len != KDT_LIM_BUF || addr != (DAT_VADDR)(uintptr_t)o->buf)
		kdt_case_fail(l->cr, ret, "LMR #%u: registered %llu bytes at %#llx",
			      n + 1, (unsigned long long)len,
			      (unsigned long long)addr);
	return DAT_SUCCESS;
}

static DAT_RETURN kdt_lim_lmr_free(struct kdt_lim_obj *o)
{
	DAT_RETURN ret = dat_lmr_free(o->h);

	kfree(o->buf);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The tests                                                           */
/* ------------------------------------------------------------------ */

/*
 * Create objects until kDAPL refuses one or @cap (at most -m) exist,
 * then free them. A refusal must be DAT_INSUFFICIENT_RESOURCES after at
 * least one success.
 */
static void kdt_lim_exhaust(struct kdt_limit *l,
			    const struct kdt_lim_ops *ops)
{
	struct kdt_cases_run *cr = l->cr;
	u32 max = min(l->maximum, ops->cap), n, i;
	const char *what = ops->what;
	struct kdt_lim_set *s;
	DAT_RETURN ret = DAT_SUCCESS;
	struct kdt_lim_obj *objs;

	objs = kvcalloc(max, sizeof(*objs), GFP_KERNEL);
	if (!objs) {
		kdt_case_fail(cr, DAT_SUCCESS, "no memory for %u handles", max);
		return;
	}
	for (n = 0; n < max; n++) {
		if (fatal_signal_pending(current)) {
			kdt_case_fail(cr, DAT_SUCCESS,
				      "interrupted after %u %s", n, what);
			break;
		}
		/* limit_ia has no sets */
		s = l->sets ? &l->sets[n % l->width] : NULL;
		ret = ops->create(l, s, n, &objs[n]);
		if (ret != DAT_SUCCESS)
			break;
		cond_resched();
	}
	cr->r->count = n;
	cr->r->dat_status = ret;
	if (ret != DAT_SUCCESS) {
		if (DAT_GET_TYPE(ret) != DAT_INSUFFICIENT_RESOURCES)
			kdt_case_fail(cr, ret, "%s #%u: %s (%#x), not %s",
				      what, n + 1, kdt_str(ret), ret, KDT_ENOUGH);
		else if (!n)
			kdt_case_fail(cr, ret, "not even one of %s: %s (%#x)",
				      what, kdt_str(ret), ret);
		else
			kdt_case_note(cr, "%s: %u (#%u: %s %#x)", what, n,
				      n + 1, kdt_str(ret), ret);
	} else {
		kdt_case_note(cr, "%s: %u%s", what, n,
			      max < l->cr->c->maximum ? " (the test's cap)" : "");
	}
	for (i = 0; i < n; i++) {
		DAT_RETURN fret = ops->destroy(&objs[i]);

		if (fret != DAT_SUCCESS)
			kdt_case_fail(cr, fret, "freeing %s #%u: %s (%#x)", what,
				      i + 1, kdt_str(fret), fret);
		cond_resched();
	}
	kvfree(objs);
}

/* Receives posted to each EP round robin; freeing the EPs flushes them. */
static void kdt_lim_rpost(struct kdt_limit *l)
{
	struct kdt_cases_run *cr = l->cr;
	u32 max = min_t(u32, l->maximum, KDT_LIM_QLEN), n, i, stop = 0;
	DAT_RETURN ret = DAT_SUCCESS, stop_ret = DAT_SUCCESS;
	DAT_EP_PARAM *param;
	u32 *posted;
	bool done = false;

	posted = kcalloc(l->width, sizeof(*posted), GFP_KERNEL);
	param = kzalloc(sizeof(*param), GFP_KERNEL);
	if (!posted || !param) {
		kdt_case_fail(cr, DAT_SUCCESS, "no memory");
		goto out;
	}
	ret = dat_ep_query(l->sets[0].ep, DAT_EP_FIELD_ALL, param);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ep_query"))
		goto out;
	for (n = 0; n < max && !done; n++) {
		for (i = 0; i < l->width; i++) {
			struct kdt_lim_set *s = &l->sets[i];
			DAT_LMR_TRIPLET t = {
				.lmr_context = s->lctx,
				.virtual_address = s->addr,
				.segment_length = KDT_LIM_BUF,
			};
			DAT_DTO_COOKIE ck = { .as_64 = ((u64)i << 32) | n };

			ret = dat_ep_post_recv(s->ep, 1, &t, ck,
					       DAT_COMPLETION_DEFAULT_FLAG);
			if (ret != DAT_SUCCESS) {
				done = true;
				stop = i;
				break;
			}
			posted[i]++;
		}
		cond_resched();
	}
	cr->r->count = posted[0];
	stop_ret = ret;
	if (ret != DAT_SUCCESS) {
		if (DAT_GET_TYPE(ret) != DAT_INSUFFICIENT_RESOURCES)
			kdt_case_fail(cr, ret, "receive #%u on EP %u: %s (%#x), not %s",
				      posted[stop] + 1, stop, kdt_str(ret), ret,
				      KDT_ENOUGH);
		else if (posted[stop] < param->ep_attr.max_recv_dtos)
			kdt_case_fail(cr, ret, "EP %u refused receive #%u (%s), max_recv_dtos %d",
				      stop, posted[stop] + 1, kdt_str(ret),
				      param->ep_attr.max_recv_dtos);
		else
			kdt_case_note(cr, "receives per EP: %u (max_recv_dtos %d; #%u: %s %#x)",
				      posted[stop], param->ep_attr.max_recv_dtos,
				      posted[stop] + 1, kdt_str(ret), ret);
	} else {
		kdt_case_note(cr, "receives posted per EP: %u (max_recv_dtos %d)%s",
			      posted[0], param->ep_attr.max_recv_dtos,
			      max < l->cr->c->maximum ? " (the test's cap)" : "");
	}

	/* freeing an EP flushes what it holds: every receive comes back */
	for (i = 0; i < l->width; i++) {
		struct kdt_lim_set *s = &l->sets[i];
		DAT_EVENT ev;
		u32 k;

		ret = dat_ep_free(s->ep);
		s->ep = DAT_HANDLE_NULL;
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ep_free"))
			continue;
		for (k = 0; k < posted[i]; k++) {
			ret = kdt_evd_wait_us(&s->evd, KDT_LIM_FLUSH_US, &ev);
			if (ret != DAT_SUCCESS) {
				kdt_case_fail(cr, ret, "EP %u: %u of %u flushed (%s)",
					      i, k, posted[i], kdt_str(ret));
				break;
			}
			if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
			    ev.event_data.dto_completion_event_data.status !=
			    DAT_DTO_ERR_FLUSHED) {
				kdt_case_fail(cr, DAT_SUCCESS, "EP %u: event %#x status %d",
					      i, ev.event_number,
					      ev.event_data.dto_completion_event_data.status);
				break;
			}
		}
		ret = dat_evd_dequeue(s->evd.h, &ev);
		if (DAT_GET_TYPE(ret) != DAT_QUEUE_EMPTY)
			kdt_case_fail(cr, ret, "EP %u: more events than %u receives posted",
				      i, posted[i]);
	}
	/* the answer that ended the posting, unless a check failed */
	if (!kdt_case_failed(cr))
		cr->r->dat_status = stop_ret;
out:
	kfree(param);
	kfree(posted);
}

/* Double the size of an LMR until kDAPL or memory refuse it. */
static void kdt_lim_size_lmr(struct kdt_limit *l)
{
	struct kdt_cases_run *cr = l->cr;
	struct kdt_lim_set *s = &l->sets[0];
	u64 size, cap, largest = 0;
	DAT_IA_ATTR *attr;
	DAT_RETURN ret = DAT_SUCCESS;
	const char *why = "the test's cap";

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr) {
		kdt_case_fail(cr, DAT_SUCCESS, "no memory");
		goto out;
	}
	ret = dat_ia_query(s->ia, NULL, DAT_IA_FIELD_ALL, attr, 0, NULL);
	if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_ia_query"))
		goto out;
	cap = min_t(u64, attr->max_lmr_block_size, KDT_LIM_LMR_CAP);
	for (size = KDT_LIM_BUF; size <= cap; size <<= 1) {
		DAT_REGION_DESCRIPTION region;
		DAT_LMR_HANDLE lmr;
		DAT_VADDR addr;
		DAT_VLEN len;
		void *buf;

		if (fatal_signal_pending(current)) {
			kdt_case_fail(cr, DAT_SUCCESS, "interrupted");
			break;
		}
		buf = kvzalloc(size, GFP_KERNEL | __GFP_NOWARN);
		if (!buf) {
			why = "no memory for more";
			break;
		}
		region.for_va = buf;
		ret = dat_lmr_kcreate(s->ia, DAT_MEM_TYPE_VIRTUAL, region, size,
				      s->pz, DAT_MEM_PRIV_ALL_FLAG,
				      DAT_VA_TYPE_VA,
				      DAT_MEM_OPTIMIZE_DONT_CARE, &lmr, NULL,
				      NULL, &len, &addr);
		if (ret != DAT_SUCCESS) {
			kvfree(buf);
			if (DAT_GET_TYPE(ret) != DAT_INSUFFICIENT_RESOURCES)
				kdt_case_fail(cr, ret, "%llu bytes: %s (%#x), not %s",
					      size, kdt_str(ret), ret,
					      KDT_ENOUGH);
			why = kdt_str(ret);
			break;
		}
		if (len != size || addr != (DAT_VADDR)(uintptr_t)buf)
			kdt_case_fail(cr, ret, "registered %llu bytes at %#llx, asked %llu",
				      (unsigned long long)len,
				      (unsigned long long)addr, size);
		ret = dat_lmr_free(lmr);
		kvfree(buf);
		if (!kdt_case_expect(cr, ret, DAT_SUCCESS, "dat_lmr_free"))
			break;
		largest = size;
		cr->r->count++;
	}
	cr->r->value = largest;
	if (!kdt_case_failed(cr))
		cr->r->dat_status = ret;
	if (!largest)
		kdt_case_fail(cr, ret, "not even an LMR of %u bytes",
			      KDT_LIM_BUF);
	else
		kdt_case_note(cr, "largest LMR %llu bytes (%s at %llu; max_lmr_block_size %llu)",
			      largest, why, largest << 1,
			      (unsigned long long)attr->max_lmr_block_size);
out:
	kfree(attr);
}

static const struct kdt_lim_ops kdt_lim_ops[KDT_LIM_RPOST] = {
	[KDT_LIM_IA] = { "IAs opened", KDT_LIMIT_CAP, kdt_lim_ia,
			 kdt_lim_ia_free },
	[KDT_LIM_PZ] = { "PZs created", KDT_LIMIT_CAP, kdt_lim_pz,
			 kdt_lim_pz_free },
	[KDT_LIM_EVD] = { "EVDs created", KDT_LIMIT_CAP, kdt_lim_evd,
			  kdt_lim_evd_free },
	[KDT_LIM_EP] = { "EPs created", KDT_LIMIT_CAP, kdt_lim_ep,
			 kdt_lim_ep_free },
	[KDT_LIM_RSP] = { "RSPs created", KDT_LIM_PORTS, kdt_lim_rsp,
			  kdt_lim_rsp_free },
	[KDT_LIM_PSP] = { "PSPs created", KDT_LIM_PORTS, kdt_lim_psp,
			  kdt_lim_psp_free },
	[KDT_LIM_LMR] = { "LMRs created", KDT_LIMIT_CAP, kdt_lim_lmr,
			  kdt_lim_lmr_free },
};

static void kdt_limit_one(struct kdt_limit *l, u32 depth)
{
	struct kdt_cases_run *cr = l->cr;
	u32 w, built = 0;

	kdt_case_begin(cr, depth, kdt_lim_names[depth].name,
		       kdt_lim_names[depth].desc);
	if (depth > KDT_LIM_IA) {
		l->sets = kcalloc(l->width, sizeof(*l->sets), GFP_KERNEL);
		if (!l->sets) {
			kdt_case_fail(cr, DAT_SUCCESS, "no memory");
			goto end;
		}
		for (w = 0; w < l->width; w++) {
			built++;
			if (!kdt_lim_set_build(l, &l->sets[w], depth, w))
				goto teardown;
		}
	}
	switch (depth) {
	case KDT_LIM_RPOST:
		kdt_lim_rpost(l);
		break;
	case KDT_LIM_SIZE_LMR:
		kdt_lim_size_lmr(l);
		break;
	default:
		kdt_lim_exhaust(l, &kdt_lim_ops[depth]);
		break;
	}
teardown:
	for (w = built; w-- > 0;)
		kdt_lim_set_teardown(l, &l->sets[w], w);
	kfree(l->sets);
	l->sets = NULL;
end:
	kdt_case_end(cr);
}

/**
 * kdt_limit_run() - dapltest's limit test, the tests @cr selects
 * @cr: the run: kdt_cases.width, .maximum and .select checked
 *
 * Context: process context (the caller's ioctl); sleeps.
 */
void kdt_limit_run(struct kdt_cases_run *cr)
{
	struct kdt_limit l = {
		.cr = cr,
		.ia_name = cr->run->ia_name,
		.width = cr->c->width,
		.maximum = min_t(u32, cr->c->maximum, KDT_LIMIT_CAP),
	};
	u32 depth;

	for (depth = 0; depth < KDT_LIM_NUM; depth++) {
		if (kdt_case_wanted(cr, depth))
			kdt_limit_one(&l, depth);
		if (fatal_signal_pending(current))
			break;
	}
}
