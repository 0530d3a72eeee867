# export: exports file parser, client matching, squashing, table publication
LIB_SRCS += src/export/export.c src/export/export_parse.c
UNIT_TESTS += tests/unit/export/test_export.c
