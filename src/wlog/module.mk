# wlog: the stable-write log (group-committed intent log of stable WRITEs, replay)
LIB_SRCS += src/wlog/wlog.c src/wlog/wlog_commit.c src/wlog/wlog_flush.c
UNIT_TESTS += tests/unit/wlog/test_wlog.c
