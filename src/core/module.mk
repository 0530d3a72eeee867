# core: arena, logging, hashing (no protocol knowledge)
LIB_SRCS += $(wildcard src/core/*.c)
UNIT_TESTS += tests/unit/core/test_siphash.c
