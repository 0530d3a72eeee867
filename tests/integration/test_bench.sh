#!/bin/bash
# test_bench.sh - a very short shoal-bench run (two load points of a few seconds, a
# small fileset) against a quick-start shoal-server, the ports found through its
# portmapper: every operation of the SFS2008 mix must be issued and answered without
# error, every I/O file must be COMMITted before the first point, the text and JSON
# reports must be written (and say so, and how the top point was set), a peak search
# must report as many probes and trials as it ran, of the lengths asked for, and put its
# peak at the top of the ladder, each point must split the server's CPU by thread
# group, and later runs must reuse the fileset without repeating an
# earlier run's XIDs (no reply from the server's duplicate cache). The
# server has the smallest --max-call-memory (one large receive buffer for all
# connections), so that WRITEs over 8 KiB from several connections take turns waiting
# for call memory: none may be lost or stuck there. Mixes of other shapes run too: REMOVE
# alone (past the spare files) and the procedures shoal-bench sends beyond SFS2008's
# (NULL, FSINFO, PATHCONF, COMMIT), all answered without error. With --uid/--gid the
# whole fileset is made as that user.
. "$(dirname "$0")/lib.sh"

BENCH=$IT_BUILD/shoal-bench
exp=$T/export
mkdir -p "$exp"
start_server bench --state-dir "$T/state" --max-call-memory 2 "$exp" || it_done
spid=${SRV_PID[bench]}

run_bench() { # extra args...
	"$BENCH" --host 127.0.0.1 --export "$exp" --load 400 --points 2 --warmup 1 --runtime 3 \
		--procs 2 --in-flight 4 --fileset-scale 0.0005 --label shoal --server-pid "$spid" \
		--no-progress "$@" 2>"$T/bench.err"
}

# answered CHECK-NAME OUTPUT OP MIN : the last "op OP" line of shoal-bench's OUTPUT shows
# more than MIN answers and no error.
answered() {
	local line ok_n err_n
	line=$(printf '%s\n' "$2" | grep "^op $3 " | tail -n 1)
	ok_n=$(printf '%s\n' "$line" | sed -n 's/.* ok \([0-9]*\) .*/\1/p')
	err_n=$(printf '%s\n' "$line" | sed -n 's/.* errors \([0-9]*\) .*/\1/p')
	if [ -n "$ok_n" ] && [ "$ok_n" -gt "$4" ] && [ "$err_n" = 0 ]; then
		ok "$1: $ok_n answered, no error"
	else
		fail "$1: expected more than $4 answers and 0 errors got '${line:-no line}'"
	fi
}

out=$(run_bench --json "$T/out.json" --report "$T/out.txt")
rc=$?
printf '%s\n' "$out" | grep -v '^op ' | sed 's/^/    /'
check bench-exit-status 0 "$rc"
[ "$rc" -eq 0 ] || sed 's/^/    stderr: /' "$T/bench.err"

for op in GETATTR LOOKUP READ ACCESS WRITE SETATTR READDIRPLUS READLINK READDIR CREATE REMOVE FSSTAT; do
	answered "op-$op" "$out" $op 0 # the last point's line
done
check no-errors-in-run "" "$(printf '%s\n' "$out" | grep '^errors:')"
# before the first point every I/O file was COMMITted, each answered NFS3_OK
settled=$(sed -n 's/^settle: COMMIT of \([0-9]*\) I\/O files.*/\1/p' "$T/bench.err")
check settle-every-io-file "$(find "$exp" -type f -name 'file_en.*' | wc -l)" "${settled:-none}"
# Each point's verdict must follow from its own figures (achieved within 10% of the
# request, mean under 20 ms, no connection lost): whether a shared CI machine met a
# rate is the benchmark's finding, not this test's (a 0.5 s stall of the machine
# legitimately fails a 3 s point); a verdict that contradicts its figures is a bug, and
# so is a point answering more than it asked for (the pacer over-issuing).
points=$(printf '%s\n' "$out" | grep '^point ')
check points-reported 2 "$(printf '%s\n' "$points" | grep -c .)"
check points-requested "200 400" "$(printf '%s\n' "$points" | awk '{print $4}' | paste -sd ' ')"
wrong=$(printf '%s\n' "$points" | awk '{
	req = $4; ach = $6; mean = $9
	want = (ach >= req * 0.9 && mean <= 20.0) ? "VALID" : "INVALID:"
	got = $NF == "VALID" ? "VALID" : ""
	for (i = 1; i <= NF; i++) if ($i == "INVALID:") got = "INVALID:"
	if (ach <= 0 || ach > req * 1.1 || got != want) print
}')
check points-verdict-follows-figures "" "$wrong"
# Each point splits the server's CPU by thread group, and every group is one of
# shoal-server's (its threads are named shoal-loopN, shoal-syncN, ...), largest first.
threads=$(printf '%s\n' "$out" | grep '^threads ')
check threads-per-point 2 "$(printf '%s\n' "$threads" | grep -c .)"
check threads-groups-are-the-servers "" "$(printf '%s\n' "$threads" | awk '{
	for (i = 2; i < NF; i += 2) {
		if ($i !~ /^shoal-[a-z]+$/ || $(i + 1) <= 0 || (i > 2 && $(i + 1) > $(i - 1))) { print; next }
	}
}')"
check json-threads-per-point 2 "$(grep -c '"server_threads": \[' "$T/out.json")"
# Each point says what the machine's CPUs did over it: three shares of their time, each
# within 0-100, adding up to 100 (to the rounding of the printed figures).
machine=$(printf '%s\n' "$out" | grep '^machine cpu ')
check machine-cpu-per-point 2 "$(printf '%s\n' "$machine" | grep -c .)"
check machine-cpu-shares-add-up "" "$(printf '%s\n' "$machine" | awk '{
	b = $4 + 0; s = $6 + 0; i = $8 + 0
	if ($3 != "busy" || $5 != "stolen" || $7 != "idle" || b < 0 || s < 0 || i < 0 ||
	    b > 100 || s > 100 || i > 100 || b + s + i < 99.8 || b + s + i > 100.2) print
}')"
check json-machine-cpu-per-point 2 "$(grep -c '"machine_busy_pct": ' "$T/out.json")"
if [ -s "$T/out.json" ] && grep -q '"points"' "$T/out.json"; then
	ok "json written"
else
	fail "json: expected $T/out.json with points"
fi
if [ -s "$T/out.txt" ] && grep -q 'SPECsfs2008\|SFS2008' "$T/out.txt"; then
	ok "text report written"
else
	fail "text report: expected $T/out.txt in the seed layout"
fi
# ...and both say how the server was brought to rest
check json-settle "\"settle\": \"COMMIT of $settled I/O files in" \
	"$(grep -o '"settle": "COMMIT of [0-9]* I/O files in' "$T/out.json")"
check json-settle-ok '"settle_failed": false' "$(grep -o '"settle_failed": [a-z]*' "$T/out.json")"
check report-settle "Before the First Point          COMMIT of $settled I/O files in" \
	"$(grep -o '^Before the First Point  *COMMIT of [0-9]* I/O files in' "$T/out.txt")"
# ...and how the top of the ladder was set (here: --load, no search)
check json-ladder-top '"ladder_top": "400 op/s, as requested"' \
	"$(grep -o '"ladder_top": "[^"]*"' "$T/out.json")"
check report-ladder-top "Peak Load Point                 400 op/s, as requested" \
	"$(grep '^Peak Load Point' "$T/out.txt")"
# ...and the seed of its choices (default 0); a seed that is not one is refused
check json-seed '"seed": "0"' "$(grep -o '"seed": "[^"]*"' "$T/out.json")"
check report-seed "Random Seed                     0" "$(grep '^Random Seed' "$T/out.txt")"
# ...and the credential its calls came with (default root's)
check json-credential '"credential": "AUTH_SYS uid 0 gid 0"' \
	"$(grep -o '"credential": "[^"]*"' "$T/out.json")"
check report-credential "Client Credential               AUTH_SYS uid 0 gid 0" \
	"$(grep '^Client Credential' "$T/out.txt")"
i=0
for bad in -1 18446744073709551616 1x ''; do
	i=$((i + 1))
	"$BENCH" --load 400 --seed "$bad" >/dev/null 2>"$T/seed.err"
	check "seed-refused-$i" "2 1" "$? $(grep -c 'seed: expected an integer' "$T/seed.err")"
done

# The fileset left behind is reused: nothing to write, same counts. Run twice with one
# call in flight, so that the second run begins with the first's calls, XID slot and
# arguments alike (until their files' sizes make them differ).
# The fileset proper: the scratch directories hold what CREATE and REMOVE leave.
fileset_files() { find "$exp" -type f -not -path '*/scratch/*' | wc -l; }
before=$(fileset_files)
for run in reuse rerun; do
	out=$(run_bench --reuse-fileset --points 1 --runtime 1 --in-flight 1)
	check $run-exit-status 0 "$?"
	check $run-no-errors "" "$(printf '%s\n' "$out" | grep '^errors:')"
	# a second's point still has the server's CPU per op: a few ms of CPU in all,
	# measured to the nanosecond, not in 10 ms clock ticks
	check $run-server-cpu yes "$(printf '%s\n' "$out" | awk '/^point /{
		for (i = 1; i < NF; i++) if ($i == "server_cpu") print ($(i + 1) > 0 ? "yes" : $(i + 1))
	}')"
done
# Reused, not rebuilt, grown or lost: at the same load, the same files outside scratch/.
# (What CREATE and REMOVE leave in scratch/ moves with each run, and a run at a higher
# load than the fileset's, as the peak searches below climb to, adds the files that
# load needs: the whole tree's count, which this test used to compare within 50 files
# after those runs too, moved by 22 to 59.)
after=$(fileset_files)
if [ "$before" -gt 100 ] && [ "$after" -eq "$before" ]; then
	ok "reuse: $before files outside scratch/ before and after"
else
	fail "reuse: expected $before files outside scratch/ after the reruns got $after"
fi
# Peak searches with trials shorter than the points, first without probes (the default
# probes would be longer than these trials), then with: as many probes and trials as
# it printed, of the lengths asked for, and its peak is the one point's request.
peak_search() { # NAME EXPECTED-PROBE-PHRASE SHOAL-BENCH-ARGS... (sets probes)
	local name=$1 want=$2 out top peak trials
	shift 2
	out=$(run_bench --reuse-fileset --auto-peak --load 200 --peak-warmup 0 --peak-runtime 0.5 \
		--points 1 --runtime 1 --json "$T/$name.json" "$@")
	check $name-exit-status 0 "$?"
	top=$(sed -n 's/.*"ladder_top": "\([^"]*\)".*/\1/p' "$T/$name.json")
	trials=$(grep -c '^auto-peak: trial requested' "$T/bench.err")
	probes=$(grep -c '^auto-peak: probe requested' "$T/bench.err")
	peak=${top%% op/s*}
	want=${want//PROBES/$probes}
	# (a top point that fell short, run again, adds "; the top point fell short, run
	# again at N op/s" and a point line of its own: a stall of the machine can do that)
	if [ "$trials" -ge 1 ] && [ "${top%%; the top point fell short, run again at *}" = "$peak op/s, searched from 200 op/s in ${want}$trials trials of 0 s warm-up + 0.5 s measured" ]; then
		ok "$name: $top"
	else
		fail "$name: expected '${want}$trials trials of 0 s + 0.5 s' got '$top'"
	fi
	check $name-is-ladder-top "$peak" "$(printf '%s\n' "$out" | awk '/^point /{print $4; exit}')"
}
peak_search peak-trials ""
check peak-trials-no-probes 0 "$probes"
peak_search peak-probes "PROBES probes of 0 s + 0.2 s and " --probe-warmup 0 --probe-runtime 0.2
if [ "$probes" -ge 2 ]; then
	ok "peak-probes: $probes probes"
else
	fail "peak-probes: expected a climb of 2 probes or more got $probes"
fi
# A mix of REMOVE alone: each process has a few spare files to remove (32), then only
# what it creates itself. Once the spares are gone a REMOVE that finds none is issued as
# a CREATE, so the point runs to its end (it used to spin forever choosing REMOVE).
printf 'SFS MIXFILE VERSION 2\nremove 100%%\n' >"$T/remove.mix"
out=$(run_bench --reuse-fileset --mix "$T/remove.mix" --load 200 --points 1 --runtime 2)
check remove-only-exit-status 0 "$?"
for op in REMOVE CREATE; do
	answered "remove-only-$op" "$out" $op 64
done
# The procedures shoal-bench sends beyond the SFS2008 mix are answered without error
# too (NULL's void result used to be counted as an error).
printf 'SFS MIXFILE VERSION 2\nnull 25%%\nfsinfo 25%%\npathconf 25%%\ncommit 25%%\n' >"$T/extra.mix"
out=$(run_bench --reuse-fileset --mix "$T/extra.mix" --load 200 --points 1 --runtime 1 \
	--seed 0xfffffffffffffffe --json "$T/extra.json")
check extra-mix-exit-status 0 "$?"
check extra-mix-seed '"seed": "18446744073709551614"' "$(grep -o '"seed": "[^"]*"' "$T/extra.json")"
for op in NULL FSINFO PATHCONF COMMIT; do
	answered "extra-mix-$op" "$out" $op 0
done
stop_server bench
# --uid/--gid: every call comes as that user, so the server makes the whole fileset
# (created and written by that user's calls) that user's, not root's. Its own
# export, whose root directory the user may write in, and server, so that the checks
# on the first server's log below stay its.
uexp=$T/export-uid
mkdir -p "$uexp"
chown 4242:4243 "$uexp"
start_server bench-uid --state-dir "$T/state-uid" "$uexp" || it_done
out=$("$BENCH" --host 127.0.0.1 --export "$uexp" --load 200 --points 1 --warmup 0 \
	--runtime 1 --procs 2 --in-flight 2 --fileset-scale 0.0005 --uid 4242 --gid 4243 \
	--no-progress --json "$T/uid.json" 2>"$T/bench-uid.err")
check uid-exit-status 0 "$?"
check uid-no-errors "" "$(printf '%s\n' "$out" | grep -E '^errors:|^op .* errors [1-9]')"
n=$(find "$uexp" -mindepth 1 | wc -l)
if [ "$n" -gt 100 ]; then ok "uid: $n objects made"; else fail "uid: expected over 100 objects got $n"; fi
check uid-owner-of-all "" "$(find "$uexp" -mindepth 1 \( ! -user 4242 -o ! -group 4243 \) | head -n 3)"
check uid-json-credential '"credential": "AUTH_SYS uid 4242 gid 4243"' \
	"$(grep -o '"credential": "[^"]*"' "$T/uid.json")"
stop_server bench-uid
for bad in -1 4294967295 x; do
	"$BENCH" --load 400 --uid "$bad" >/dev/null 2>"$T/uid.err"
	check "uid-refused-$bad" "2 1" "$? $(grep -c 'uid: expected a number' "$T/uid.err")"
done
# No call of any run was answered from the duplicate request cache: the rerun repeats
# the reuse run's calls (same seeds), so it must not repeat their XIDs, or the
# server would replay the first run's replies for its SETATTRs, CREATEs and WRITEs
# without doing them (the cache keys on client address, XID and arguments).
check no-reply-replayed 0 \
	"$(sed -n 's/.*duplicate request cache: \([0-9]*\) hits.*/\1/p' "$T/bench.log" | tail -n 1)"
it_done
