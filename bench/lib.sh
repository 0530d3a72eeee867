# lib.sh - what bench/sfs.sh, bench/point.sh and bench/meta.sh share: the usage text (a
# script's own header comment), the BUILD_DIR argument, the private network namespace
# they run in, handing an export to the user shoal-bench calls as, and starting
# shoal-server in its quick-start mode. Sourced, not run.
# shellcheck shell=bash

# Print the calling script's header comment (line 2 up to "set -euo") and exit 2.
bench_usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

# bench_build DIR: the build directory, as an absolute path in $build (usage if none).
bench_build() {
	if [ -z "${1:-}" ] || [ ! -d "$1" ]; then bench_usage; fi
	build=$(realpath "$1")
}

# bench_fileset_scale FILESET_LOAD LOAD: the shoal-bench --fileset-scale that gives a
# run at LOAD op/s the fileset of a run at FILESET_LOAD (its default scale, 0.001).
bench_fileset_scale() {
	awk -v f="$1" -v l="$2" 'BEGIN { printf "%.9f", f * 0.001 / l }'
}

# bench_netns ARGS...: run the calling script again with ARGS in a private network and
# mount namespace, unless it already is in one of its own making; then bring up lo.
bench_netns() {
	if [ "${SHOAL_IN_NETNS:-}" != 1 ]; then
		exec env SHOAL_IN_NETNS=1 unshare --net --mount "$0" "$@"
	fi
	ip link set lo up
}

# bench_export_owner DIR SHOAL_BENCH_ARGS...: give DIR to the user and group that
# shoal-bench's --uid and --gid name (if they do), so that its calls may create the
# fileset in the export's root directory, as SFS's SFS_NFS_USER_ID and _GROUP_ID do.
bench_export_owner() {
	local dir=$1 uid=0 gid=0
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--uid) uid=${2:-0}; shift ;;
		--gid) gid=${2:-0}; shift ;;
		--uid=*) uid=${1#--uid=} ;;
		--gid=*) gid=${1#--gid=} ;;
		esac
		shift
	done
	if [ "$uid" != 0 ] || [ "$gid" != 0 ]; then
		chown "$uid:$gid" "$dir"
	fi
}

# bench_start_shoal STATE_DIR EXPORT_DIR LOG [SERVER_ARGS...]: start shoal-server (no
# portmapper, its state in STATE_DIR, its log in LOG), wait for its ready line and set
# $spid; exit 1 with the log if it does not start within 20 s.
bench_start_shoal() {
	local state=$1 export_dir=$2 log=$3

	shift 3
	exec 3< <("$build/shoal-server" --no-portmap --state-dir "$state" --ready-fd 1 "$@" \
		"$export_dir" 2>"$log")
	read -r -t 20 _ <&3 || {
		echo "$(basename "$0"): shoal-server did not start" >&2
		cat "$log" >&2
		exit 1
	}
	exec 3<&-
	# shellcheck disable=SC2034 # read by the scripts that source this file
	spid=$(pgrep -f -n "shoal-server --no-portmap --state-dir $state")
}
