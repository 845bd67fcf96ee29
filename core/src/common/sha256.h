/* SPDX-License-Identifier: MIT */
/* common: SHA-256 (sha256.c), compiled into libtlreplay and the kernel
 * recorder alike: a kernel record database names each blob by the 64 hex
 * digits of its SHA-256; the recorder names them, replay checks them. */
#ifndef TLREPLAY_COMMON_SHA256_H
#define TLREPLAY_COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct kdb_sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t fill;
};
void kdb_sha256_init(struct kdb_sha256 *s);
void kdb_sha256_add(struct kdb_sha256 *s, const void *data, size_t len);
void kdb_sha256_hex(struct kdb_sha256 *s, char hex[65]);

#endif
