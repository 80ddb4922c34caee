// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the DAT 2.0 return codes: the numbers in
 * <dat2/dat_error.h>, dat_strerror() and kdapl_errno_to_dat().
 *
 * The literal numbers below were checked against the DAT 2.0 dat_error.h
 * of the OFA dapl distribution; they are ABI and must never change.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

#include <dat2/dat_error.h>

#include "../kdapl/error.h"

struct code_literal {
	u32 code;
	u32 literal;
	const char *name;
};

#define CODE_LITERAL(c, lit)	{ .code = (c), .literal = (lit), .name = #c }

static const struct code_literal type_literals[] = {
	CODE_LITERAL(DAT_SUCCESS, 0x00000000),
	CODE_LITERAL(DAT_ABORT, 0x00010000),
	CODE_LITERAL(DAT_CONN_QUAL_IN_USE, 0x00020000),
	CODE_LITERAL(DAT_INSUFFICIENT_RESOURCES, 0x00030000),
	CODE_LITERAL(DAT_INTERNAL_ERROR, 0x00040000),
	CODE_LITERAL(DAT_INVALID_HANDLE, 0x00050000),
	CODE_LITERAL(DAT_INVALID_PARAMETER, 0x00060000),
	CODE_LITERAL(DAT_INVALID_STATE, 0x00070000),
	CODE_LITERAL(DAT_LENGTH_ERROR, 0x00080000),
	CODE_LITERAL(DAT_MODEL_NOT_SUPPORTED, 0x00090000),
	CODE_LITERAL(DAT_PROVIDER_NOT_FOUND, 0x000a0000),
	CODE_LITERAL(DAT_PRIVILEGES_VIOLATION, 0x000b0000),
	CODE_LITERAL(DAT_PROTECTION_VIOLATION, 0x000c0000),
	CODE_LITERAL(DAT_QUEUE_EMPTY, 0x000d0000),
	CODE_LITERAL(DAT_QUEUE_FULL, 0x000e0000),
	CODE_LITERAL(DAT_TIMEOUT_EXPIRED, 0x000f0000),
	CODE_LITERAL(DAT_PROVIDER_ALREADY_REGISTERED, 0x00100000),
	CODE_LITERAL(DAT_PROVIDER_IN_USE, 0x00110000),
	CODE_LITERAL(DAT_INVALID_ADDRESS, 0x00120000),
	CODE_LITERAL(DAT_INTERRUPTED_CALL, 0x00130000),
	CODE_LITERAL(DAT_CONN_QUAL_UNAVAILABLE, 0x00140000),
	CODE_LITERAL(DAT_RESERVED_LMR, 0x00150000),
	CODE_LITERAL(DAT_PORT_IN_USE, 0x00160000),
	CODE_LITERAL(DAT_COMM_NOT_SUPPORTED, 0x00170000),
	CODE_LITERAL(DAT_EXTENSION_BASE, 0x10000000),
	CODE_LITERAL(DAT_NOT_IMPLEMENTED, 0x3fff0000),
	CODE_LITERAL(DAT_NAME_NOT_FOUND, 0x000a0000),
};

/* The first and last of every group, plus the ones used most. */
static const struct code_literal subtype_literals[] = {
	CODE_LITERAL(DAT_NO_SUBTYPE, 0),
	CODE_LITERAL(DAT_SUB_INTERRUPTED, 1),
	CODE_LITERAL(DAT_RESOURCE_MEMORY, 2),
	CODE_LITERAL(DAT_RESOURCE_SRQ, 10),
	CODE_LITERAL(DAT_INVALID_HANDLE_IA, 11),
	CODE_LITERAL(DAT_INVALID_HANDLE_EP, 12),
	CODE_LITERAL(DAT_INVALID_HANDLE_CSP, 26),
	CODE_LITERAL(DAT_INVALID_HANDLE1, 27),
	CODE_LITERAL(DAT_INVALID_HANDLE10, 36),
	CODE_LITERAL(DAT_INVALID_ARG1, 37),
	CODE_LITERAL(DAT_INVALID_ARG10, 46),
	CODE_LITERAL(DAT_INVALID_STATE_EP_UNCONNECTED, 47),
	CODE_LITERAL(DAT_INVALID_STATE_EP_CONNECTED, 51),
	CODE_LITERAL(DAT_INVALID_STATE_EP_UNCONFTENTATIVE, 66),
	CODE_LITERAL(DAT_INVALID_STATE_CNO_IN_USE, 67),
	CODE_LITERAL(DAT_INVALID_STATE_EVD_OPEN, 69),
	CODE_LITERAL(DAT_INVALID_STATE_EVD_ASYNC, 79),
	CODE_LITERAL(DAT_INVALID_STATE_IA_IN_USE, 80),
	CODE_LITERAL(DAT_INVALID_STATE_PZ_FREE, 84),
	CODE_LITERAL(DAT_INVALID_STATE_SRQ_OPERATIONAL, 85),
	CODE_LITERAL(DAT_INVALID_STATE_SRQ_IN_USE, 87),
	CODE_LITERAL(DAT_PRIVILEGES_READ, 88),
	CODE_LITERAL(DAT_PRIVILEGES_RDMA_WRITE, 91),
	CODE_LITERAL(DAT_PROTECTION_READ, 92),
	CODE_LITERAL(DAT_PROTECTION_RDMA_WRITE, 95),
	CODE_LITERAL(DAT_INVALID_ADDRESS_UNSUPPORTED, 96),
	CODE_LITERAL(DAT_INVALID_ADDRESS_UNREACHABLE, 97),
	CODE_LITERAL(DAT_INVALID_ADDRESS_MALFORMED, 98),
	CODE_LITERAL(DAT_NAME_NOT_REGISTERED, 99),
	CODE_LITERAL(DAT_THREAD_SAFETY_NOT_FOUND, 102),
};

static void check_literals(struct kunit *test, const struct code_literal *tab,
			   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, tab[i].code, tab[i].literal,
				    "%s", tab[i].name);
}

static void dat_error_type_values(struct kunit *test)
{
	check_literals(test, type_literals, ARRAY_SIZE(type_literals));
}

static void dat_error_subtype_values(struct kunit *test)
{
	check_literals(test, subtype_literals, ARRAY_SIZE(subtype_literals));
}

static void dat_error_class_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, DAT_CLASS_ERROR, 0x80000000U);
	KUNIT_EXPECT_EQ(test, DAT_CLASS_WARNING, 0x40000000U);
	KUNIT_EXPECT_EQ(test, DAT_CLASS_SUCCESS, 0x00000000U);
	KUNIT_EXPECT_EQ(test, DAT_TYPE_MASK, 0x3fff0000U);
	KUNIT_EXPECT_EQ(test, DAT_SUBTYPE_MASK, 0x0000ffffU);

	/* The three fields are disjoint and cover the whole word. */
	KUNIT_EXPECT_EQ(test, DAT_TYPE_MASK & DAT_SUBTYPE_MASK, 0U);
	KUNIT_EXPECT_EQ(test, (DAT_CLASS_ERROR | DAT_CLASS_WARNING) &
			(DAT_TYPE_MASK | DAT_SUBTYPE_MASK), 0U);
	KUNIT_EXPECT_EQ(test, DAT_CLASS_ERROR | DAT_CLASS_WARNING |
			DAT_TYPE_MASK | DAT_SUBTYPE_MASK, 0xffffffffU);

	KUNIT_EXPECT_EQ(test, (u32)DAT_SUCCESS, 0U);
	KUNIT_EXPECT_TRUE(test, DAT_IS_WARNING(DAT_CLASS_WARNING |
					       DAT_QUEUE_EMPTY));
	KUNIT_EXPECT_FALSE(test, DAT_IS_WARNING(DAT_ERROR(DAT_QUEUE_EMPTY,
							  DAT_NO_SUBTYPE)));
}

static void dat_error_compose_extract(struct kunit *test)
{
	DAT_RETURN r;

	r = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	KUNIT_EXPECT_EQ(test, r, 0x8005000cU);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(r), (u32)DAT_INVALID_HANDLE);
	KUNIT_EXPECT_EQ(test, DAT_GET_SUBTYPE(r), (u32)DAT_INVALID_HANDLE_EP);
	KUNIT_EXPECT_EQ(test, r & DAT_CLASS_ERROR, DAT_CLASS_ERROR);
	KUNIT_EXPECT_EQ(test, r & DAT_CLASS_WARNING, 0U);

	r = DAT_ERROR(DAT_NOT_IMPLEMENTED, DAT_THREAD_SAFETY_NOT_FOUND);
	KUNIT_EXPECT_EQ(test, r, 0xbfff0066U);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(r), 0x3fff0000U);
	KUNIT_EXPECT_EQ(test, DAT_GET_SUBTYPE(r), 0x66U);

	r = DAT_ERROR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, r, 0x80070034U);

	/* The class bits never leak into the type or the subtype. */
	r = DAT_CLASS_ERROR | DAT_CLASS_WARNING | DAT_TYPE_MASK |
	    DAT_SUBTYPE_MASK;
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(r), DAT_TYPE_MASK);
	KUNIT_EXPECT_EQ(test, DAT_GET_SUBTYPE(r), DAT_SUBTYPE_MASK);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(DAT_CLASS_ERROR), 0U);
	KUNIT_EXPECT_EQ(test, DAT_GET_SUBTYPE(DAT_CLASS_ERROR), 0U);

	/* A bare type (no class bit) still decodes the same way. */
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(DAT_QUEUE_FULL),
			(u32)DAT_QUEUE_FULL);
	KUNIT_EXPECT_EQ(test, DAT_GET_SUBTYPE(DAT_QUEUE_FULL), 0U);
}

static void expect_names(struct kunit *test, DAT_RETURN value,
			 const char *major, const char *minor)
{
	const char *maj = NULL, *min = NULL;

	KUNIT_EXPECT_EQ_MSG(test, dat_strerror(value, &maj, &min),
			    (u32)DAT_SUCCESS, "value 0x%08x", value);
	KUNIT_ASSERT_NOT_NULL(test, maj);
	KUNIT_ASSERT_NOT_NULL(test, min);
	KUNIT_EXPECT_STREQ(test, maj, major);
	KUNIT_EXPECT_STREQ(test, min, minor);
}

static void dat_error_strerror_known(struct kunit *test)
{
	expect_names(test, DAT_SUCCESS, "DAT_SUCCESS", "DAT_NO_SUBTYPE");
	expect_names(test, DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
		     "DAT_INVALID_HANDLE", "DAT_INVALID_HANDLE_EP");
	expect_names(test, DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
		     "DAT_INVALID_PARAMETER", "DAT_INVALID_ARG3");
	expect_names(test, DAT_ERROR(DAT_INVALID_STATE,
				     DAT_INVALID_STATE_EP_UNCONNECTED),
		     "DAT_INVALID_STATE", "DAT_INVALID_STATE_EP_UNCONNECTED");
	expect_names(test, DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				     DAT_RESOURCE_MEMORY),
		     "DAT_INSUFFICIENT_RESOURCES", "DAT_RESOURCE_MEMORY");
	expect_names(test, DAT_ERROR(DAT_INVALID_ADDRESS,
				     DAT_INVALID_ADDRESS_UNREACHABLE),
		     "DAT_INVALID_ADDRESS", "DAT_INVALID_ADDRESS_UNREACHABLE");
	expect_names(test, DAT_ERROR(DAT_PROVIDER_NOT_FOUND,
				     DAT_THREAD_SAFETY_NOT_FOUND),
		     "DAT_PROVIDER_NOT_FOUND", "DAT_THREAD_SAFETY_NOT_FOUND");
	expect_names(test, DAT_ERROR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE),
		     "DAT_NOT_IMPLEMENTED", "DAT_NO_SUBTYPE");
	expect_names(test, DAT_ERROR(DAT_COMM_NOT_SUPPORTED, DAT_NO_SUBTYPE),
		     "DAT_COMM_NOT_SUPPORTED", "DAT_NO_SUBTYPE");
	/* Class bits do not change the names; warnings decode too. */
	expect_names(test, DAT_CLASS_WARNING | DAT_QUEUE_EMPTY,
		     "DAT_QUEUE_EMPTY", "DAT_NO_SUBTYPE");
	expect_names(test, DAT_TIMEOUT_EXPIRED, "DAT_TIMEOUT_EXPIRED",
		     "DAT_NO_SUBTYPE");
}

static void expect_unknown(struct kunit *test, DAT_RETURN value)
{
	const char *maj = NULL, *min = NULL;
	DAT_RETURN r = dat_strerror(value, &maj, &min);

	KUNIT_EXPECT_EQ_MSG(test, r,
			    DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1),
			    "value 0x%08x", value);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(r), (u32)DAT_INVALID_PARAMETER);
	/* Both messages are still usable strings. */
	KUNIT_EXPECT_NOT_NULL(test, maj);
	KUNIT_EXPECT_NOT_NULL(test, min);
}

static void dat_error_strerror_unknown_type(struct kunit *test)
{
	const char *maj = NULL, *min = NULL;

	/* Just past the last regular type. */
	expect_unknown(test, DAT_ERROR(0x00180000, DAT_NO_SUBTYPE));
	/* Inside the extension range but not its base. */
	expect_unknown(test, DAT_ERROR(0x10010000, DAT_NO_SUBTYPE));
	/* Just below DAT_NOT_IMPLEMENTED. */
	expect_unknown(test, DAT_ERROR(0x3ffe0000, DAT_NO_SUBTYPE));
	expect_unknown(test, 0x3ffe0000);

	/* The subtype is still named when only the type is unknown. */
	dat_strerror(DAT_ERROR(0x00180000, DAT_INVALID_HANDLE_EP), &maj, &min);
	KUNIT_ASSERT_NOT_NULL(test, min);
	KUNIT_EXPECT_STREQ(test, min, "DAT_INVALID_HANDLE_EP");
}

static void dat_error_strerror_unknown_subtype(struct kunit *test)
{
	const char *maj = NULL, *min = NULL;

	expect_unknown(test, DAT_ERROR(DAT_INVALID_HANDLE,
				       DAT_THREAD_SAFETY_NOT_FOUND + 1));
	expect_unknown(test, DAT_ERROR(DAT_INVALID_STATE, 0x1234));
	expect_unknown(test, DAT_ERROR(DAT_INTERNAL_ERROR, DAT_SUBTYPE_MASK));

	/* The type is still named when only the subtype is unknown. */
	dat_strerror(DAT_ERROR(DAT_INVALID_HANDLE, 0xffff), &maj, &min);
	KUNIT_ASSERT_NOT_NULL(test, maj);
	KUNIT_EXPECT_STREQ(test, maj, "DAT_INVALID_HANDLE");
}

static void dat_error_strerror_null(struct kunit *test)
{
	const char *msg = NULL;
	DAT_RETURN ok = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);

	KUNIT_EXPECT_EQ(test, dat_strerror(ok, NULL, &msg),
			DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_NULL(test, msg);

	KUNIT_EXPECT_EQ(test, dat_strerror(ok, &msg, NULL),
			DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_NULL(test, msg);

	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_strerror(ok, NULL, NULL)),
			(u32)DAT_INVALID_PARAMETER);
}

static void dat_error_type_table(struct kunit *test)
{
	const struct kdapl_code_name *tab;
	const char *maj, *min;
	size_t n, i, j;

	tab = kdapl_dat_type_names(&n);
	KUNIT_ASSERT_NOT_NULL(test, tab);
	/* Every type the spec defines, DAT_NAME_NOT_FOUND being an alias. */
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(type_literals) - 1);

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_NOT_NULL(test, tab[i].name);
		KUNIT_EXPECT_EQ_MSG(test, tab[i].value & ~DAT_TYPE_MASK, 0U,
				    "%s", tab[i].name);
		/* Strictly ascending: sorted for bsearch, no duplicates. */
		if (i)
			KUNIT_EXPECT_GT_MSG(test, tab[i].value,
					    tab[i - 1].value, "%s",
					    tab[i].name);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, tab[i].name, tab[j].name);

		maj = NULL;
		min = NULL;
		KUNIT_EXPECT_EQ(test,
				dat_strerror(DAT_ERROR(tab[i].value,
						       DAT_NO_SUBTYPE),
					     &maj, &min),
				(u32)DAT_SUCCESS);
		KUNIT_ASSERT_NOT_NULL(test, maj);
		KUNIT_EXPECT_STREQ(test, maj, tab[i].name);
	}

	/* Each spec type is in the table under its own name. */
	for (i = 0; i + 1 < ARRAY_SIZE(type_literals); i++) {
		for (j = 0; j < n; j++)
			if (tab[j].value == type_literals[i].literal)
				break;
		KUNIT_ASSERT_LT_MSG(test, j, n, "%s missing",
				    type_literals[i].name);
		KUNIT_EXPECT_STREQ(test, tab[j].name, type_literals[i].name);
	}
}

static void dat_error_subtype_table(struct kunit *test)
{
	const char * const *tab;
	const char *maj, *min;
	size_t n, i, j;

	tab = kdapl_dat_subtype_names(&n);
	KUNIT_ASSERT_NOT_NULL(test, tab);
	KUNIT_EXPECT_EQ(test, n, (size_t)DAT_THREAD_SAFETY_NOT_FOUND + 1);

	/* Indexed by value, so values cannot repeat; names must not either. */
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_NOT_NULL_MSG(test, tab[i], "hole at %zu", i);
		KUNIT_EXPECT_EQ(test, strncmp(tab[i], "DAT_", 4), 0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, tab[i], tab[j]);

		maj = NULL;
		min = NULL;
		KUNIT_EXPECT_EQ(test,
				dat_strerror(DAT_ERROR(DAT_INVALID_STATE, i),
					     &maj, &min),
				(u32)DAT_SUCCESS);
		KUNIT_ASSERT_NOT_NULL(test, min);
		KUNIT_EXPECT_STREQ(test, min, tab[i]);
	}

	/* Each spec value checked above carries its own name. */
	for (i = 0; i < ARRAY_SIZE(subtype_literals); i++) {
		KUNIT_ASSERT_LT(test, (size_t)subtype_literals[i].literal, n);
		KUNIT_EXPECT_STREQ(test, tab[subtype_literals[i].literal],
				   subtype_literals[i].name);
	}
}

struct errno_case {
	int err;
	u32 expect;
};

static const struct errno_case errno_cases[] = {
	{ 0, 0x00000000 },
	{ -ENOMEM, 0x80030002 },	/* INSUFFICIENT_RESOURCES, MEMORY */
	{ -EINVAL, 0x80060000 },	/* INVALID_PARAMETER */
	{ -ETIMEDOUT, 0x800f0000 },	/* TIMEOUT_EXPIRED */
	{ -EADDRINUSE, 0x80020000 },	/* CONN_QUAL_IN_USE */
	{ -EOPNOTSUPP, 0x80090000 },	/* MODEL_NOT_SUPPORTED */
	{ -EINTR, 0x80130000 },		/* INTERRUPTED_CALL */
	{ -ERESTARTSYS, 0x80130000 },	/* INTERRUPTED_CALL */
	{ -EACCES, 0x800b0000 },	/* PRIVILEGES_VIOLATION */
	{ -EPERM, 0x800b0000 },		/* PRIVILEGES_VIOLATION */
	{ -EAGAIN, 0x800e0000 },	/* QUEUE_FULL */
	{ -ECONNREFUSED, 0x80120000 },	/* INVALID_ADDRESS */
	{ -ENETUNREACH, 0x80120061 },	/* INVALID_ADDRESS, UNREACHABLE */
	{ -EHOSTUNREACH, 0x80120061 },	/* INVALID_ADDRESS, UNREACHABLE */
	{ -ENODEV, 0x800a0000 },	/* PROVIDER_NOT_FOUND */
};

static void dat_error_errno_known(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errno_cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, kdapl_errno_to_dat(errno_cases[i].err),
				    errno_cases[i].expect, "errno %d",
				    errno_cases[i].err);

	/* The same, spelled with the header's names. */
	KUNIT_EXPECT_EQ(test, kdapl_errno_to_dat(-ENOMEM),
			DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				  DAT_RESOURCE_MEMORY));
	KUNIT_EXPECT_EQ(test, kdapl_errno_to_dat(-EHOSTUNREACH),
			DAT_ERROR(DAT_INVALID_ADDRESS,
				  DAT_INVALID_ADDRESS_UNREACHABLE));
	KUNIT_EXPECT_EQ(test, kdapl_errno_to_dat(-EWOULDBLOCK),
			kdapl_errno_to_dat(-EAGAIN));
}

static void dat_error_errno_other(struct kunit *test)
{
	static const int others[] = {
		-EIO, -EBADMSG, -EFAULT, -ENOENT, -EPROTO, -4095, 1, EINVAL,
		INT_MIN, INT_MAX,
	};
	const DAT_RETURN internal = DAT_ERROR(DAT_INTERNAL_ERROR,
					      DAT_NO_SUBTYPE);
	const char *maj, *min;
	size_t i;
	int err;

	KUNIT_EXPECT_EQ(test, internal, 0x80040000U);
	for (i = 0; i < ARRAY_SIZE(others); i++)
		KUNIT_EXPECT_EQ_MSG(test, kdapl_errno_to_dat(others[i]),
				    internal, "errno %d", others[i]);

	/* Every errno yields a nameable code with the error class bit. */
	for (err = -1; err >= -(int)ERESTARTSYS; err--) {
		DAT_RETURN r = kdapl_errno_to_dat(err);

		KUNIT_EXPECT_EQ_MSG(test, r & DAT_CLASS_ERROR, DAT_CLASS_ERROR,
				    "errno %d", err);
		KUNIT_EXPECT_EQ_MSG(test, dat_strerror(r, &maj, &min),
				    (u32)DAT_SUCCESS, "errno %d", err);
	}
}

static struct kunit_case kdapl_error_cases[] = {
	KUNIT_CASE(dat_error_type_values),
	KUNIT_CASE(dat_error_subtype_values),
	KUNIT_CASE(dat_error_class_bits),
	KUNIT_CASE(dat_error_compose_extract),
	KUNIT_CASE(dat_error_strerror_known),
	KUNIT_CASE(dat_error_strerror_unknown_type),
	KUNIT_CASE(dat_error_strerror_unknown_subtype),
	KUNIT_CASE(dat_error_strerror_null),
	KUNIT_CASE(dat_error_type_table),
	KUNIT_CASE(dat_error_subtype_table),
	KUNIT_CASE(dat_error_errno_known),
	KUNIT_CASE(dat_error_errno_other),
	{}
};

static struct kunit_suite kdapl_error_suite = {
	.name = "kdapl_error",
	.test_cases = kdapl_error_cases,
};

kunit_test_suite(kdapl_error_suite);

MODULE_DESCRIPTION("KUnit tests for kdapl DAT return codes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KDAPL_INTERNAL);
