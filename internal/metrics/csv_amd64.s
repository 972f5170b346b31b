//go:build !purego

#include "textflag.h"

// CHUNK classifies the 16 bytes at off(SI) into bits sh to sh+15 of R8
// (digits), R9 (commas) and R10 (minus signs), and sets those bits of R11
// for bytes that are none of those nor a point.
#define CHUNK(off, sh) \
	MOVOU   off(SI), X0 \
	MOVOU   X0, X1 \
	PSUBB   X8, X1 \
	MOVOU   X1, X2 \
	PMINUB  X9, X2 \
	PCMPEQB X1, X2 \
	MOVOU   X0, X3 \
	PCMPEQB X10, X3 \
	MOVOU   X0, X4 \
	PCMPEQB X11, X4 \
	PCMPEQB X12, X0 \
	POR     X2, X0 \
	POR     X3, X0 \
	POR     X4, X0 \
	PMOVMSKB X2, AX \
	PMOVMSKB X3, BX \
	PMOVMSKB X4, CX \
	PMOVMSKB X0, DX \
	XORQ    $0xffff, DX \
	SHLQ    $sh, AX \
	SHLQ    $sh, BX \
	SHLQ    $sh, CX \
	SHLQ    $sh, DX \
	ORQ     AX, R8 \
	ORQ     BX, R9 \
	ORQ     CX, R10 \
	ORQ     DX, R11

// func classes64(b *[64]byte) (d, c, m, other uint64)
TEXT ·classes64(SB), NOSPLIT, $0-40
	MOVQ b+0(FP), SI
	// X8: '0' in each byte; X9: 9 (a digit is b-'0' <= 9, unsigned);
	// X10: ','; X11: '-'; X12: '.'.
	MOVQ $0x3030303030303030, AX
	MOVQ AX, X8
	PUNPCKLQDQ X8, X8
	MOVQ $0x0909090909090909, AX
	MOVQ AX, X9
	PUNPCKLQDQ X9, X9
	MOVQ $0x2c2c2c2c2c2c2c2c, AX
	MOVQ AX, X10
	PUNPCKLQDQ X10, X10
	MOVQ $0x2d2d2d2d2d2d2d2d, AX
	MOVQ AX, X11
	PUNPCKLQDQ X11, X11
	MOVQ $0x2e2e2e2e2e2e2e2e, AX
	MOVQ AX, X12
	PUNPCKLQDQ X12, X12
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	CHUNK(0, 0)
	CHUNK(16, 16)
	CHUNK(32, 32)
	CHUNK(48, 48)
	MOVQ R8, d+8(FP)
	MOVQ R9, c+16(FP)
	MOVQ R10, m+24(FP)
	MOVQ R11, other+32(FP)
	RET
