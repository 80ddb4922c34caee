// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kdapl_ia: the registry, IAs and PZs (kdapl/registry.c,
 * ia.c, pz.c, api.c) against the real siw devices of the test guest:
 * siwA on veth0 (192.0.2.1, root namespace) and siwB on veth1
 * (192.0.2.2, namespace b), created before kdapl.ko is loaded.
 *
 * Every IA a case opens is recorded and closed abruptly at the end of the
 * case, so a failing case leaks nothing; a device the removal case took
 * away is given back the same way.
 */

#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "../kdapl/ep.h"
#include "../kdapl/evd.h"
#include "../kdapl/registry.h"

#include "kdapl_test.h"

MODULE_IMPORT_NS(KDAPL_INTERNAL);

#define ADDR_A	"192.0.2.1"
#define ADDR_B	"192.0.2.2"
#define MAX_IAS	8

struct ia_ctx {
	DAT_IA_HANDLE ia[MAX_IAS];
	int nia;
	struct ib_device *dev;		/* a device reference to drop */
	bool removed;			/* @dev was taken away: give it back */
};

#define E_NOTFOUND(sub)	DAT_ERROR(DAT_PROVIDER_NOT_FOUND, sub)

/* DAT_NAME_PTR is a plain char *: string literals fit it. */
#define SIW_A	"siwA"
#define SIW_B	"siwB"

static struct ia_ctx *ctx_of(struct kunit *test)
{
	return test->priv;
}

static void track(struct kunit *test, DAT_IA_HANDLE ia)
{
	struct ia_ctx *ctx = ctx_of(test);

	KUNIT_ASSERT_LT(test, ctx->nia, MAX_IAS);
	ctx->ia[ctx->nia++] = ia;
}

/* Open @name with an async EVD of its own; both handles checked. */
static DAT_IA_HANDLE open_ia(struct kunit *test, char *name,
			     DAT_EVD_HANDLE *async_out)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_HANDLE_TYPE type;

	ASSERT_OK(test, dat_ia_open(name, 8, &async, &ia));
	KUNIT_ASSERT_NOT_NULL(test, ia);
	track(test, ia);
	KUNIT_ASSERT_NOT_NULL(test, async);
	ASSERT_OK(test, dat_get_handle_type(async, &type));
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_EVD);
	if (async_out)
		*async_out = async;
	return ia;
}

static DAT_PZ_HANDLE create_pz(struct kunit *test, DAT_IA_HANDLE ia)
{
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;

	ASSERT_OK(test, dat_pz_create(ia, &pz));
	KUNIT_ASSERT_NOT_NULL(test, pz);
	return pz;
}

static bool handle_valid(DAT_HANDLE h)
{
	DAT_HANDLE_TYPE type;

	return dat_get_handle_type(h, &type) == DAT_SUCCESS;
}

/* The names of the registered IAs, as dat_registry_list_providers says. */
static int list_names(struct kunit *test, DAT_PROVIDER_INFO **info)
{
	DAT_PROVIDER_INFO **list;
	DAT_COUNT n = -1, got = -1, i;

	ASSERT_OK(test, dat_registry_list_providers(0, &n, NULL));
	KUNIT_ASSERT_GE(test, n, 0);
	*info = kunit_kcalloc(test, n + 1, sizeof(**info), GFP_KERNEL);
	list = kunit_kcalloc(test, n + 1, sizeof(*list), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *info);
	KUNIT_ASSERT_NOT_NULL(test, list);
	for (i = 0; i <= n; i++)
		list[i] = &(*info)[i];
	ASSERT_OK(test, dat_registry_list_providers(n + 1, &got, list));
	KUNIT_ASSERT_EQ(test, got, n);
	return n;
}

static bool listed(struct kunit *test, const char *name)
{
	DAT_PROVIDER_INFO *info;
	int n = list_names(test, &info), i;

	for (i = 0; i < n; i++)
		if (!strcmp(info[i].ia_name, name))
			return true;
	return false;
}

static void expect_ipv4(struct kunit *test, DAT_IA_ADDRESS_PTR a,
			const char *want)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)a;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_EQ_MSG(test, a->sa_family, AF_INET,
			    "address family %u", a->sa_family);
	KUNIT_EXPECT_EQ_MSG(test, ntohl(sin->sin_addr.s_addr),
			    ntohl(in_aton(want)),
			    "address %pI4, want %s", &sin->sin_addr, want);
}

static void ia_list_providers(struct kunit *test)
{
	DAT_PROVIDER_INFO *info, one[2];
	DAT_PROVIDER_INFO *list[2] = { &one[0], &one[1] };
	DAT_COUNT n, got = -1;
	bool a = false, b = false;
	int i;

	n = list_names(test, &info);
	KUNIT_EXPECT_GE(test, n, 2);
	for (i = 0; i < n; i++) {
		a |= !strcmp(info[i].ia_name, "siwA");
		b |= !strcmp(info[i].ia_name, "siwB");
		KUNIT_EXPECT_EQ(test, info[i].dapl_version_major, 2U);
		KUNIT_EXPECT_EQ(test, info[i].dapl_version_minor, 0U);
		KUNIT_EXPECT_EQ(test, info[i].is_thread_safe, DAT_TRUE);
	}
	KUNIT_EXPECT_TRUE_MSG(test, a, "siwA not listed");
	KUNIT_EXPECT_TRUE_MSG(test, b, "siwB not listed");
	/* Entry n (one more than needed) stays untouched. */
	KUNIT_EXPECT_EQ(test, info[n].ia_name[0], 0);

	/* Room for one: the count is still the total, one entry filled. */
	memset(one, 0x5a, sizeof(one));
	ASSERT_OK(test, dat_registry_list_providers(1, &got, list));
	KUNIT_EXPECT_EQ(test, got, n);
	KUNIT_EXPECT_EQ(test, one[0].dapl_version_major, 2U);
	KUNIT_EXPECT_EQ(test, one[1].dapl_version_major, 0x5a5a5a5aU);

	EXPECT_RET(test, dat_registry_list_providers(2, NULL, list),
		   E_PARAM(2));
	EXPECT_RET(test, dat_registry_list_providers(-1, &got, list),
		   E_PARAM(1));
	EXPECT_RET(test, dat_registry_list_providers(2, &got, NULL),
		   E_PARAM(3));
	list[0] = NULL;
	EXPECT_RET(test, dat_registry_list_providers(2, &got, list),
		   E_PARAM(3));
}

static void check_query(struct kunit *test, char *name, const char *addr)
{
	DAT_EVD_HANDLE async, q_async = DAT_HANDLE_NULL;
	DAT_PROVIDER_ATTR *pa;
	DAT_IA_ATTR *a;
	DAT_IA_HANDLE ia;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	pa = kunit_kzalloc(test, sizeof(*pa), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, pa);

	ia = open_ia(test, name, &async);
	ASSERT_OK(test, dat_ia_query(ia, &q_async, DAT_IA_FIELD_ALL, a,
				     DAT_PROVIDER_FIELD_ALL, pa));
	KUNIT_EXPECT_PTR_EQ(test, q_async, async);
	KUNIT_EXPECT_STREQ(test, a->adapter_name, name);
	expect_ipv4(test, a->ia_address_ptr, addr);
	KUNIT_EXPECT_GT(test, a->vendor_name[0], 0);
	KUNIT_EXPECT_GT(test, a->max_eps, 0);
	KUNIT_EXPECT_GT(test, a->max_evds, 0);
	KUNIT_EXPECT_GT(test, a->max_pzs, 0);
	KUNIT_EXPECT_GT(test, a->max_lmrs, 0);
	KUNIT_EXPECT_GT(test, a->max_message_size, 0U);
	KUNIT_EXPECT_GT(test, a->max_rdma_size, 0U);
	KUNIT_EXPECT_GT(test, a->max_iov_segments_per_dto, 0);
	KUNIT_EXPECT_STREQ(test, pa->provider_name, "kdapl");
	KUNIT_EXPECT_EQ(test, pa->dapl_version_major, 2U);
	KUNIT_EXPECT_EQ(test, pa->dapl_version_minor, 0U);
	KUNIT_EXPECT_EQ(test, pa->is_thread_safe, DAT_TRUE);
	/* siw is iWARP: MPA private data, read sinks must be writable. */
	KUNIT_EXPECT_EQ(test, pa->max_private_data_size,
			KDAPL_IW_MAX_PRIVATE_DATA);
	KUNIT_EXPECT_EQ(test, pa->rdma_write_for_rdma_read_req, DAT_TRUE);
	KUNIT_EXPECT_EQ(test, pa->evd_stream_merging_supported[5][2],
			DAT_TRUE);

	/* Only the requested fields are written. */
	memset(a, 0x5a, sizeof(*a));
	ASSERT_OK(test, dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_MAX_PZS, a,
				     0, NULL));
	KUNIT_EXPECT_GT(test, a->max_pzs, 0);
	KUNIT_EXPECT_NE(test, a->max_pzs, 0x5a5a5a5a);
	KUNIT_EXPECT_EQ(test, a->max_eps, 0x5a5a5a5a);
	KUNIT_EXPECT_EQ(test, (u8)a->adapter_name[0], 0x5a);

	/* The async EVD the open created goes with a graceful close. */
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	KUNIT_EXPECT_FALSE(test, handle_valid(async));
	KUNIT_EXPECT_FALSE(test, handle_valid(ia));
}

static void ia_open_query_address(struct kunit *test)
{
	check_query(test, SIW_A, ADDR_A);
	/* siwB's netdev lives in namespace b. */
	check_query(test, SIW_B, ADDR_B);
}

static void ia_open_errors(struct kunit *test)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL, good;
	char unknown[] = "nosuchdev";
	char *long_name;
	DAT_PZ_HANDLE pz;

	EXPECT_RET(test, dat_ia_open(unknown, 8, &async, &ia),
		   E_NOTFOUND(DAT_NAME_NOT_REGISTERED));
	long_name = kunit_kzalloc(test, DAT_NAME_MAX_LENGTH + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, long_name);
	memset(long_name, 'a', DAT_NAME_MAX_LENGTH);
	EXPECT_RET(test, dat_ia_open(long_name, 8, &async, &ia),
		   E_NOTFOUND(DAT_NAME_NOT_REGISTERED));
	EXPECT_RET(test, dat_ia_openv(SIW_A, 8, &async, &ia, 1, 0, DAT_TRUE),
		   E_NOTFOUND(DAT_MAJOR_NOT_FOUND));
	EXPECT_RET(test, dat_ia_openv(SIW_A, 8, &async, &ia, 2, 1, DAT_TRUE),
		   E_NOTFOUND(DAT_MINOR_NOT_FOUND));
	EXPECT_RET(test, dat_ia_openv(SIW_A, 8, &async, &ia, 2, 0, 7),
		   E_PARAM(7));
	EXPECT_RET(test, dat_ia_open(SIW_A, 0, &async, &ia), E_PARAM(2));
	KUNIT_EXPECT_NULL(test, ia);
	KUNIT_EXPECT_NULL(test, async);

	/* A non-thread-safe consumer is served by the thread-safe provider. */
	ASSERT_OK(test, dat_ia_openv(SIW_A, 8, &async, &ia, 2, 0, DAT_FALSE));
	track(test, ia);

	/* Someone else's async EVD must be an EVD with DAT_EVD_ASYNC_FLAG. */
	good = ia;
	pz = create_pz(test, good);
	ia = DAT_HANDLE_NULL;
	async = pz;
	EXPECT_RET(test, dat_ia_open(SIW_A, 8, &async, &ia),
		   E_HANDLE(DAT_INVALID_HANDLE_EVD_ASYNC));
	async = (DAT_EVD_HANDLE)0x12345;
	EXPECT_RET(test, dat_ia_open(SIW_A, 8, &async, &ia),
		   E_HANDLE(DAT_INVALID_HANDLE_EVD_ASYNC));
	KUNIT_EXPECT_NULL(test, ia);
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(good, DAT_CLOSE_GRACEFUL_FLAG));
}

static void ia_consumer_async_evd(struct kunit *test)
{
	DAT_EVD_HANDLE async1, async2, q = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia1, ia2 = DAT_HANDLE_NULL;

	ia1 = open_ia(test, SIW_A, &async1);
	async2 = async1;
	ASSERT_OK(test, dat_ia_open(SIW_B, 0, &async2, &ia2));
	track(test, ia2);
	KUNIT_EXPECT_PTR_EQ(test, async2, async1);
	ASSERT_OK(test, dat_ia_query(ia2, &q, 0, NULL, 0, NULL));
	KUNIT_EXPECT_PTR_EQ(test, q, async1);

	/* Closing the borrower leaves the EVD to its owner. */
	ASSERT_OK(test, dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	KUNIT_EXPECT_TRUE(test, handle_valid(async1));
	ASSERT_OK(test, dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG));
	KUNIT_EXPECT_FALSE(test, handle_valid(async1));
}

static void ia_handle_type_context(struct kunit *test)
{
	DAT_CONTEXT c1 = { .as_64 = 0x1122334455667788ULL };
	DAT_CONTEXT c2 = { .as_ptr = test };
	DAT_CONTEXT got;
	DAT_EVD_HANDLE async;
	DAT_HANDLE_TYPE type;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	ia = open_ia(test, SIW_A, &async);
	pz = create_pz(test, ia);

	ASSERT_OK(test, dat_get_handle_type(ia, &type));
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_IA);
	ASSERT_OK(test, dat_get_handle_type(pz, &type));
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_PZ);
	ASSERT_OK(test, dat_get_handle_type(async, &type));
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_EVD);

	/* Never set: all zero. */
	memset(&got, 0xff, sizeof(got));
	ASSERT_OK(test, dat_get_consumer_context(pz, &got));
	KUNIT_EXPECT_EQ(test, got.as_64, 0ULL);

	ASSERT_OK(test, dat_set_consumer_context(ia, c1));
	ASSERT_OK(test, dat_set_consumer_context(pz, c2));
	ASSERT_OK(test, dat_get_consumer_context(ia, &got));
	KUNIT_EXPECT_EQ(test, got.as_64, c1.as_64);
	ASSERT_OK(test, dat_get_consumer_context(pz, &got));
	KUNIT_EXPECT_PTR_EQ(test, got.as_ptr, (void *)test);
	ASSERT_OK(test, dat_set_consumer_context(async, c1));
	ASSERT_OK(test, dat_get_consumer_context(async, &got));
	KUNIT_EXPECT_EQ(test, got.as_64, c1.as_64);

	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static void ia_wrong_type_handles(struct kunit *test)
{
	DAT_PZ_HANDLE pz, pz2 = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia, ia2 = DAT_HANDLE_NULL;
	DAT_HANDLE garbage = (DAT_HANDLE)0x7777;
	DAT_PZ_PARAM pp;
	DAT_HANDLE_TYPE type;
	DAT_EVD_HANDLE async;
	DAT_CONTEXT c = { 0 };

	ia = open_ia(test, SIW_A, &async);
	pz = create_pz(test, ia);

	EXPECT_RET(test, dat_pz_query(ia, DAT_PZ_FIELD_ALL, &pp),
		   E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, dat_pz_query(async, DAT_PZ_FIELD_ALL, &pp),
		   E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, dat_pz_free(ia), E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, dat_ia_query(pz, NULL, 0, NULL, 0, NULL),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	EXPECT_RET(test, dat_pz_create(pz, &pz2),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	EXPECT_RET(test, dat_ia_close(pz, DAT_CLOSE_ABRUPT_FLAG),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	EXPECT_RET(test, dat_ia_close(async, DAT_CLOSE_ABRUPT_FLAG),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	EXPECT_RET(test, dat_ia_close(garbage, DAT_CLOSE_ABRUPT_FLAG),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	EXPECT_RET(test, dat_ia_query(NULL, NULL, 0, NULL, 0, NULL),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	EXPECT_RET(test, dat_pz_free(NULL), E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, dat_get_handle_type(garbage, &type),
		   E_HANDLE(DAT_INVALID_HANDLE1));
	EXPECT_RET(test, dat_get_handle_type(NULL, &type),
		   E_HANDLE(DAT_INVALID_HANDLE1));
	EXPECT_RET(test, dat_set_consumer_context(garbage, c),
		   E_HANDLE(DAT_INVALID_HANDLE1));
	EXPECT_RET(test, dat_get_consumer_context(NULL, &c),
		   E_HANDLE(DAT_INVALID_HANDLE1));
	KUNIT_EXPECT_NULL(test, pz2);
	KUNIT_EXPECT_NULL(test, ia2);

	/* Nothing was harmed by the wrong calls. */
	ASSERT_OK(test, dat_pz_query(pz, DAT_PZ_FIELD_ALL, &pp));
	KUNIT_EXPECT_PTR_EQ(test, pp.ia_handle, ia);
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static void ia_pz_create_query_free(struct kunit *test)
{
	DAT_PZ_PARAM pp;
	DAT_PZ_HANDLE pz1, pz2;
	DAT_IA_HANDLE ia;

	ia = open_ia(test, SIW_A, NULL);
	pz1 = create_pz(test, ia);
	pz2 = create_pz(test, ia);
	KUNIT_EXPECT_PTR_NE(test, pz1, pz2);

	pp.ia_handle = NULL;
	ASSERT_OK(test, dat_pz_query(pz1, DAT_PZ_FIELD_IA_HANDLE, &pp));
	KUNIT_EXPECT_PTR_EQ(test, pp.ia_handle, ia);
	pp.ia_handle = (DAT_IA_HANDLE)0x5a;
	ASSERT_OK(test, dat_pz_query(pz2, 0, &pp));
	KUNIT_EXPECT_PTR_EQ(test, pp.ia_handle, (DAT_IA_HANDLE)0x5a);
	EXPECT_RET(test, dat_pz_query(pz2, 0x80, &pp), E_PARAM(2));

	ASSERT_OK(test, dat_pz_free(pz1));
	ASSERT_OK(test, dat_pz_query(pz2, DAT_PZ_FIELD_ALL, &pp));
	KUNIT_EXPECT_PTR_EQ(test, pp.ia_handle, ia);
	ASSERT_OK(test, dat_pz_free(pz2));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static void ia_close_graceful_with_pz(struct kunit *test)
{
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_PZ_PARAM pp;

	ia = open_ia(test, SIW_A, &async);
	pz = create_pz(test, ia);
	EXPECT_RET(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		   E_STATE(DAT_INVALID_STATE_IA_IN_USE));
	EXPECT_RET(test, dat_ia_close(ia, (DAT_CLOSE_FLAGS)7), E_PARAM(2));

	/* The IA and its objects are untouched by the refusal. */
	ASSERT_OK(test, dat_ia_query(ia, NULL, 0, NULL, 0, NULL));
	ASSERT_OK(test, dat_pz_query(pz, DAT_PZ_FIELD_ALL, &pp));
	KUNIT_EXPECT_TRUE(test, handle_valid(async));

	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	KUNIT_EXPECT_FALSE(test, handle_valid(ia));
	KUNIT_EXPECT_FALSE(test, handle_valid(async));
}

static void ia_close_abrupt_with_pz(struct kunit *test)
{
	DAT_PZ_HANDLE pz1, pz2;
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia;
	DAT_PZ_PARAM pp;

	ia = open_ia(test, SIW_A, &async);
	pz1 = create_pz(test, ia);
	pz2 = create_pz(test, ia);
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));

	EXPECT_RET(test, dat_pz_query(pz1, DAT_PZ_FIELD_ALL, &pp),
		   E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, dat_pz_free(pz2), E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, dat_ia_query(ia, NULL, 0, NULL, 0, NULL),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_FALSE(test, handle_valid(async));
}

static DAT_EVD_HANDLE create_sw_evd(struct kunit *test, DAT_IA_HANDLE ia,
				    DAT_COUNT qlen)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	ASSERT_OK(test, dat_evd_kcreate(ia, qlen, DAT_UPCALL_DISABLE, NULL,
					DAT_EVD_SOFTWARE_FLAG, &evd));
	KUNIT_ASSERT_NOT_NULL(test, evd);
	return evd;
}

static DAT_RETURN post_sw(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };

	return dat_evd_post_se(evd, &ev);
}

/* An overflow is reported once on the IA's async EVD, per episode. */
static void ia_evd_overflow_reported(struct kunit *test)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;
	DAT_EVENT ev;

	ia = open_ia(test, SIW_A, &async);
	evd = create_sw_evd(test, ia, 2);
	ASSERT_OK(test, post_sw(evd));
	ASSERT_OK(test, post_sw(evd));
	EXPECT_RET(test, post_sw(evd), DAT_ERROR(DAT_QUEUE_FULL, 0));
	EXPECT_RET(test, post_sw(evd), DAT_ERROR(DAT_QUEUE_FULL, 0));

	ASSERT_OK(test, dat_evd_dequeue(async, &ev));
	KUNIT_EXPECT_EQ(test, ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);
	KUNIT_EXPECT_PTR_EQ(test, ev.event_data.asynch_error_event_data.dat_handle,
			    evd);
	/* The second refusal of the same episode is not reported again. */
	EXPECT_RET(test, dat_evd_dequeue(async, &ev),
		   DAT_ERROR(DAT_QUEUE_EMPTY, 0));

	/* After a dequeue, a new overflow is a new report. */
	ASSERT_OK(test, dat_evd_dequeue(evd, &ev));
	ASSERT_OK(test, post_sw(evd));
	EXPECT_RET(test, post_sw(evd), DAT_ERROR(DAT_QUEUE_FULL, 0));
	ASSERT_OK(test, dat_evd_dequeue(async, &ev));
	KUNIT_EXPECT_EQ(test, ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);

	ASSERT_OK(test, dat_evd_free(evd));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* Graceful close refuses live EVDs; abrupt close frees them. */
static void ia_close_with_evd(struct kunit *test)
{
	DAT_EVD_HANDLE async, evd, late = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia;

	ia = open_ia(test, SIW_A, &async);
	evd = create_sw_evd(test, ia, 4);
	EXPECT_RET(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		   E_STATE(DAT_INVALID_STATE_IA_IN_USE));
	KUNIT_EXPECT_TRUE(test, handle_valid(evd));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	KUNIT_EXPECT_FALSE(test, handle_valid(evd));
	KUNIT_EXPECT_FALSE(test, handle_valid(async));
	EXPECT_RET(test, post_sw(evd), E_HANDLE(DAT_NO_SUBTYPE));
	EXPECT_RET(test, dat_evd_kcreate(ia, 4, DAT_UPCALL_DISABLE, NULL,
					 DAT_EVD_SOFTWARE_FLAG, &late),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_NULL(test, late);
}

/*
 * A PZ or an EVD freed between an EP creation's lookup of its handle and
 * the IA lock the creation takes (issue 19, 5): the EP must not attach
 * to it. The window is opened by hand: the lookups are taken, the
 * objects freed through the API, then the creation runs under the lock.
 */
static void ia_ep_new_after_free(struct kunit *test)
{
	struct kdapl_obj *o_ia, *o_pz, *o_evd;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	struct kdapl_ep *ep = NULL;
	struct kdapl_ia *kia;
	DAT_PZ_HANDLE pz;
	DAT_IA_HANDLE ia;
	DAT_RETURN ret;

	ia = open_ia(test, SIW_A, NULL);
	pz = create_pz(test, ia);
	ASSERT_OK(test, dat_evd_kcreate(ia, 8, DAT_UPCALL_DISABLE, NULL,
					DAT_EVD_DTO_FLAG, &evd));
	o_ia = kdapl_obj_get(ia, KDAPL_HT_IA);
	KUNIT_ASSERT_NOT_NULL(test, o_ia);
	kia = container_of(o_ia, struct kdapl_ia, base);
	o_pz = kdapl_obj_get(pz, KDAPL_HT_PZ);
	o_evd = kdapl_obj_get(evd, KDAPL_HT_EVD);
	KUNIT_ASSERT_NOT_NULL(test, o_pz);
	KUNIT_ASSERT_NOT_NULL(test, o_evd);

	/* freed: nobody uses them yet */
	ASSERT_OK(test, dat_evd_free(evd));
	ASSERT_OK(test, dat_pz_free(pz));

	mutex_lock(&kia->lock);
	ret = kdapl_ep_new(kia, NULL, container_of(o_evd, struct kdapl_evd,
						   base),
			   NULL, NULL, NULL, false, &ep);
	mutex_unlock(&kia->lock);
	EXPECT_RET(test, ret, E_HANDLE(DAT_INVALID_HANDLE_EVD_RECV));

	mutex_lock(&kia->lock);
	ret = kdapl_ep_new(kia, container_of(o_pz, struct kdapl_pz, base),
			   NULL, NULL, NULL, NULL, false, &ep);
	mutex_unlock(&kia->lock);
	EXPECT_RET(test, ret, E_HANDLE(DAT_INVALID_HANDLE_PZ));

	kdapl_obj_put(o_ia);
	/* nothing left behind: a graceful close finds no child */
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static void ia_use_after_free(struct kunit *test)
{
	DAT_PZ_HANDLE pz, pz2 = DAT_HANDLE_NULL;
	DAT_CONTEXT c = { .as_64 = 1 };
	DAT_HANDLE_TYPE type;
	DAT_IA_HANDLE ia;
	DAT_PZ_PARAM pp;

	ia = open_ia(test, SIW_A, NULL);
	pz = create_pz(test, ia);
	ASSERT_OK(test, dat_pz_free(pz));
	EXPECT_RET(test, dat_pz_query(pz, DAT_PZ_FIELD_ALL, &pp),
		   E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, dat_get_handle_type(pz, &type),
		   E_HANDLE(DAT_INVALID_HANDLE1));
	EXPECT_RET(test, dat_set_consumer_context(pz, c),
		   E_HANDLE(DAT_INVALID_HANDLE1));

	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	EXPECT_RET(test, dat_ia_query(ia, NULL, 0, NULL, 0, NULL),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	EXPECT_RET(test, dat_pz_create(ia, &pz2),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_NULL(test, pz2);
	EXPECT_RET(test, dat_get_consumer_context(ia, &c),
		   E_HANDLE(DAT_INVALID_HANDLE1));

	/* A new object does not get the freed handle value back. */
	ia = open_ia(test, SIW_A, NULL);
	pz2 = create_pz(test, ia);
	KUNIT_EXPECT_PTR_NE(test, pz2, pz);
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

static void ia_double_free(struct kunit *test)
{
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	ia = open_ia(test, SIW_A, NULL);
	pz = create_pz(test, ia);
	ASSERT_OK(test, dat_pz_free(pz));
	EXPECT_RET(test, dat_pz_free(pz), E_HANDLE(DAT_INVALID_HANDLE_PZ));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	EXPECT_RET(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	EXPECT_RET(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
}

static void ia_null_out_pointers(struct kunit *test)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL, good;
	DAT_PROVIDER_ATTR *pa;
	DAT_IA_ATTR *a;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	pa = kunit_kzalloc(test, sizeof(*pa), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, pa);

	EXPECT_RET(test, dat_ia_open(NULL, 8, &async, &ia), E_PARAM(1));
	EXPECT_RET(test, dat_ia_open(SIW_A, 8, NULL, &ia), E_PARAM(3));
	EXPECT_RET(test, dat_ia_open(SIW_A, 8, &async, NULL), E_PARAM(4));
	KUNIT_EXPECT_NULL(test, ia);
	KUNIT_EXPECT_NULL(test, async);

	good = open_ia(test, SIW_A, NULL);
	EXPECT_RET(test, dat_pz_create(good, NULL), E_PARAM(2));
	EXPECT_RET(test, dat_ia_query(good, NULL, DAT_IA_FIELD_ALL, NULL, 0,
				      NULL), E_PARAM(4));
	EXPECT_RET(test, dat_ia_query(good, NULL, 0, NULL,
				      DAT_PROVIDER_FIELD_ALL, NULL),
		   E_PARAM(6));
	EXPECT_RET(test, dat_ia_query(good, NULL, ~0ULL, a, 0, NULL),
		   E_PARAM(3));
	EXPECT_RET(test, dat_ia_query(good, NULL, 0, NULL, ~0ULL, pa),
		   E_PARAM(5));
	EXPECT_RET(test, dat_get_handle_type(good, NULL), E_PARAM(2));
	EXPECT_RET(test, dat_get_consumer_context(good, NULL), E_PARAM(2));
	{
		DAT_PZ_HANDLE pz = create_pz(test, good);

		EXPECT_RET(test, dat_pz_query(pz, DAT_PZ_FIELD_ALL, NULL),
			   E_PARAM(3));
		ASSERT_OK(test, dat_pz_free(pz));
	}
	/* None of the refused calls left a child behind. */
	ASSERT_OK(test, dat_ia_close(good, DAT_CLOSE_GRACEFUL_FLAG));
}

/*
 * The device of open IAs goes away: the IAs are told, go dead, give up
 * their PDs, and can still be closed; the device then comes back.
 */
static void ia_device_removal(struct kunit *test)
{
	DAT_EVD_HANDLE async1, async2, async3, q;
	DAT_IA_HANDLE ia1, ia2, ia3 = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz1, pz2, pz3 = DAT_HANDLE_NULL;
	struct ia_ctx *ctx = ctx_of(test);
	DAT_CONTEXT c = { .as_64 = 42 };
	DAT_HANDLE_TYPE type;
	struct ib_device *dev;
	DAT_PZ_PARAM pp;
	DAT_EVENT ev;
	DAT_IA_ATTR *a;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	dev = ib_device_get_by_name("siwB", RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	ctx->dev = dev;

	ia1 = open_ia(test, SIW_B, &async1);
	ia2 = open_ia(test, SIW_B, &async2);
	pz1 = create_pz(test, ia1);
	pz2 = create_pz(test, ia2);
	EXPECT_RET(test, dat_evd_dequeue(async1, &ev),
		   DAT_ERROR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));

	ctx->removed = true;		/* given back at exit whatever happens */
	kdapl_registry_remove_device(dev);

	/* Each IA got exactly one catastrophic error naming it. */
	ASSERT_OK(test, dat_evd_dequeue(async1, &ev));
	KUNIT_EXPECT_EQ(test, ev.event_number, DAT_ASYNC_ERROR_IA_CATASTROPHIC);
	KUNIT_EXPECT_PTR_EQ(test, ev.evd_handle, async1);
	KUNIT_EXPECT_PTR_EQ(test, ev.event_data.asynch_error_event_data.dat_handle,
			    ia1);
	KUNIT_EXPECT_EQ(test, ev.event_data.asynch_error_event_data.reason,
			DAT_IA_CATASTROPHIC_ERROR);
	EXPECT_RET(test, dat_evd_dequeue(async1, &ev),
		   DAT_ERROR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE));
	ASSERT_OK(test, dat_evd_dequeue(async2, &ev));
	KUNIT_EXPECT_PTR_EQ(test, ev.event_data.asynch_error_event_data.dat_handle,
			    ia2);

	/* Gone from the registry. */
	KUNIT_EXPECT_FALSE(test, listed(test, "siwB"));
	KUNIT_EXPECT_TRUE(test, listed(test, "siwA"));
	async3 = DAT_HANDLE_NULL;
	EXPECT_RET(test, dat_ia_open(SIW_B, 8, &async3, &ia3),
		   E_NOTFOUND(DAT_NAME_NOT_REGISTERED));

	/* Dead: calls fail, handle helpers and frees still work. */
	EXPECT_RET(test, dat_ia_query(ia1, &q, DAT_IA_FIELD_ALL, a, 0, NULL),
		   E_STATE(DAT_NO_SUBTYPE));
	EXPECT_RET(test, dat_pz_create(ia1, &pz3), E_STATE(DAT_NO_SUBTYPE));
	KUNIT_EXPECT_NULL(test, pz3);
	EXPECT_RET(test, dat_pz_query(pz1, DAT_PZ_FIELD_ALL, &pp),
		   E_STATE(DAT_NO_SUBTYPE));
	ASSERT_OK(test, dat_get_handle_type(ia1, &type));
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_IA);
	ASSERT_OK(test, dat_set_consumer_context(pz1, c));
	EXPECT_RET(test, dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG),
		   E_STATE(DAT_INVALID_STATE_IA_IN_USE));
	ASSERT_OK(test, dat_pz_free(pz1));
	ASSERT_OK(test, dat_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG));
	KUNIT_EXPECT_FALSE(test, handle_valid(async1));
	ASSERT_OK(test, dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
	KUNIT_EXPECT_FALSE(test, handle_valid(pz2));

	/* The device comes back as a new provider. */
	ctx->removed = false;
	KUNIT_EXPECT_EQ(test, kdapl_registry_add_device(dev), 0);
	KUNIT_EXPECT_TRUE(test, listed(test, "siwB"));
	ia3 = open_ia(test, SIW_B, NULL);
	ASSERT_OK(test, dat_ia_query(ia3, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, a,
				     0, NULL));
	expect_ipv4(test, a->ia_address_ptr, ADDR_B);
	ASSERT_OK(test, dat_ia_close(ia3, DAT_CLOSE_GRACEFUL_FLAG));
}

static int ia_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct ia_ctx), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void ia_test_exit(struct kunit *test)
{
	struct ia_ctx *ctx = ctx_of(test);
	int i;

	/* Already closed ones answer DAT_INVALID_HANDLE. */
	for (i = 0; i < ctx->nia; i++)
		dat_ia_close(ctx->ia[i], DAT_CLOSE_ABRUPT_FLAG);
	if (ctx->removed)
		kdapl_registry_add_device(ctx->dev);
	if (ctx->dev)
		ib_device_put(ctx->dev);
}

static struct kunit_case kdapl_ia_cases[] = {
	KUNIT_CASE(ia_list_providers),
	KUNIT_CASE(ia_open_query_address),
	KUNIT_CASE(ia_open_errors),
	KUNIT_CASE(ia_consumer_async_evd),
	KUNIT_CASE(ia_handle_type_context),
	KUNIT_CASE(ia_wrong_type_handles),
	KUNIT_CASE(ia_pz_create_query_free),
	KUNIT_CASE(ia_close_graceful_with_pz),
	KUNIT_CASE(ia_close_abrupt_with_pz),
	KUNIT_CASE(ia_evd_overflow_reported),
	KUNIT_CASE(ia_close_with_evd),
	KUNIT_CASE(ia_use_after_free),
	KUNIT_CASE(ia_ep_new_after_free),
	KUNIT_CASE(ia_double_free),
	KUNIT_CASE(ia_null_out_pointers),
	KUNIT_CASE(ia_device_removal),
	{}
};

static struct kunit_suite kdapl_ia_suite = {
	.name = "kdapl_ia",
	.init = ia_test_init,
	.exit = ia_test_exit,
	.test_cases = kdapl_ia_cases,
};

kunit_test_suite(kdapl_ia_suite);

MODULE_DESCRIPTION("KUnit tests for kdapl IAs, PZs and the registry over siw");
MODULE_LICENSE("GPL");
