# server: the shoal-server daemon's entry point
SERVER_SRCS += src/server/main.c src/server/stable_log.c
