/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Assertions on DAT return codes shared by the kdapl KUnit suites: the
 * message names the call and both codes, so a failure says what came back.
 */
#ifndef KDAPL_KUNIT_TEST_H
#define KDAPL_KUNIT_TEST_H

#include <kunit/test.h>
#include <dat2/dat.h>

#define EXPECT_RET(test, expr, want)					\
	do {								\
		DAT_RETURN __got = (expr);				\
		DAT_RETURN __want = (want);				\
									\
		KUNIT_EXPECT_TRUE_MSG(test, __got == __want,		\
				      "%s = %#x, want %#x", #expr,	\
				      __got, __want);			\
	} while (0)

#define ASSERT_OK(test, expr)						\
	do {								\
		DAT_RETURN __got = (expr);				\
									\
		KUNIT_ASSERT_TRUE_MSG(test, __got == DAT_SUCCESS,	\
				      "%s = %#x", #expr, __got);	\
	} while (0)

/*
 * kdapl's internal knobs the tests turn (kdapl/cm.c, KDAPL_INTERNAL):
 * the graceful disconnect's bound, and failures of the allocation
 * dat_ep_connect() relies on.
 */
unsigned int kdapl_set_disconnect_timeout(unsigned int ms);
unsigned int kdapl_test_fail_spares(unsigned int n);

#define E_HANDLE(sub)	DAT_ERROR(DAT_INVALID_HANDLE, sub)
#define E_PARAM(n)	DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG##n)
#define E_STATE(sub)	DAT_ERROR(DAT_INVALID_STATE, sub)

#endif /* KDAPL_KUNIT_TEST_H */
