/* SPDX-License-Identifier: MIT */
/* How long a module image is. cuModuleLoadData takes a bare pointer, so
 * the length must be read from the image itself: a fatbin's header gives
 * it, an ELF cubin's section and program headers bound it, PTX ends at its
 * NUL. */
#include <ctype.h>
#include <elf.h>
#include <string.h>

#include "rec.h"

struct fatbin_header {
	uint32_t magic;
	uint16_t version;
	uint16_t header_size;
	uint64_t fat_size;
};

/* cudart's __fatBinC_Wrapper_t */
struct fatbin_wrapper {
	uint32_t magic;
	uint32_t version;
	const void *data;
	const void *filename_or_fatbins;
};

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* The extent of an ELF64 image: the furthest byte any header or the
 * contents of a section or segment reach. */
static size_t elf_len(const unsigned char *p)
{
	const Elf64_Ehdr *eh = (const void *)p;
	size_t len = sizeof(*eh);
	unsigned i;

	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	len = max_sz(len, eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize);
	len = max_sz(len, eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize);
	for (i = 0; eh->e_shoff && i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = (const void *)(p + eh->e_shoff + (size_t)i * eh->e_shentsize);

		if (sh->sh_type != SHT_NOBITS)
			len = max_sz(len, sh->sh_offset + sh->sh_size);
	}
	for (i = 0; eh->e_phoff && i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(p + eh->e_phoff + (size_t)i * eh->e_phentsize);

		len = max_sz(len, ph->p_offset + ph->p_filesz);
	}
	return len;
}

size_t rec_image_len(const void **data, enum rec_image_kind *kind)
{
	const unsigned char *p = *data;
	uint32_t magic;

	if (!p)
		return 0;
	memcpy(&magic, p, sizeof(magic));
	if (magic == TL_FATBIN_WRAPPER_MAGIC) {
		const struct fatbin_wrapper *w = (const void *)p;

		*data = w->data;
		p = *data;
		if (!p)
			return 0;
		memcpy(&magic, p, sizeof(magic));
	}
	if (magic == TL_FATBIN_MAGIC) {
		const struct fatbin_header *h = (const void *)p;

		*kind = REC_IMG_FATBIN;
		return (size_t)h->header_size + h->fat_size;
	}
	if (!memcmp(p, ELFMAG, SELFMAG)) {
		*kind = REC_IMG_CUBIN;
		return elf_len(p);
	}
	/* PTX is text: a comment, a directive or white space comes first */
	if (isprint(p[0]) || isspace(p[0])) {
		*kind = REC_IMG_PTX;
		return strlen((const char *)p) + 1;
	}
	*kind = REC_IMG_OTHER;
	return 0;
}
