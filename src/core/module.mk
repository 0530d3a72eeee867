# core: arena, logging, hashing, checksums, the clock, file-system flush facts (no
# protocol knowledge)
LIB_SRCS += $(wildcard src/core/*.c)
UNIT_TESTS += tests/unit/core/test_siphash.c tests/unit/core/test_crc32c.c \
	tests/unit/core/test_arena.c \
	tests/unit/core/test_fsflush.c
