/*
 * recmark.h - TCP record marking (RFC 5531 section 11) as a pure state machine.
 *
 * A record is a sequence of fragments, each preceded by a 4-byte mark whose top bit
 * says "last fragment" and whose low 31 bits give the fragment length. The parser
 * never copies: it tells the caller which input bytes are record data, so the
 * transport can assemble the record wherever it likes (a pooled request buffer,
 * or directly via recv() for large WRITEs).
 */
#ifndef SHOAL_NET_RECMARK_H
#define SHOAL_NET_RECMARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RM_LAST_FRAG 0x80000000u

struct recmark {
	size_t max;	    /* largest record accepted */
	size_t rec_len;	    /* record bytes announced so far (all fragments seen) */
	uint32_t frag_left; /* data bytes of the current fragment still to come */
	bool in_frag;	    /* a fragment header has been consumed */
	bool last;	    /* the current fragment is the record's last */
};

enum rm_event {
	RM_NEED_MORE, /* not enough input to make progress */
	RM_FRAG,      /* consumed a 4-byte fragment mark; record length now rec_len */
	RM_BYTES,     /* the first *take input bytes are record data: copy them */
	RM_RECORD,    /* the record is complete (*take is 0) */
	RM_TOO_BIG,   /* the record would exceed max: close the connection */
};

/* Start parsing at a record boundary; records above @max bytes are refused. */
void recmark_init(struct recmark *rm, size_t max);
/*
 * Advance over @in[0..avail). Returns the next event; *take is how many input bytes
 * it consumed (the caller must skip them). After RM_FRAG the caller makes room for
 * rec_len bytes; after RM_RECORD the parser is back at a record boundary.
 */
enum rm_event recmark_next(struct recmark *rm, const uint8_t *in, size_t avail, size_t *take);
/* Account for @n fragment data bytes the caller received directly (n <= frag_left). */
void recmark_direct(struct recmark *rm, size_t n);

#endif
