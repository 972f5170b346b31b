//go:build !purego

#include "textflag.h"

// MASK turns the CRC-32C register r (not yet inverted) into the masked
// form a TFRecord stores: ^r rotated right by 15, plus 0xa282ead8.
#define MASK(r) \
	NOTL r \
	RORL $15, r \
	ADDL $0xa282ead8, r

// func tfFrameSSE42(b []byte, starts, maxLen int, ends *[256]uint32) int
TEXT ·tfFrameSSE42(SB), NOSPLIT, $0-56
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVQ starts+24(FP), DX
	MOVQ maxLen+32(FP), R8
	MOVQ ends+40(FP), DI
	XORQ BX, BX // offset of the record
	XORQ R9, R9 // records checked

record:
	CMPQ R9, $256
	JAE  done
	CMPQ BX, DX
	JGE  done
	MOVQ CX, AX
	SUBQ BX, AX
	CMPQ AX, $16
	JL   done
	SUBQ $16, AX                // room for the data
	MOVQ (SI)(BX*1), R10        // its length
	CMPQ R10, AX
	JA   done
	CMPQ R10, R8
	JA   done
	MOVL $0xffffffff, R11
	CRC32Q R10, R11
	MASK(R11)
	CMPL R11, 8(SI)(BX*1)
	JNE  done
	LEAQ 12(SI)(BX*1), R13      // the data
	MOVQ R10, R14               // bytes left of it
	MOVL $0xffffffff, R11

data8:
	CMPQ R14, $8
	JB   data4
	CRC32Q (R13), R11
	ADDQ $8, R13
	SUBQ $8, R14
	JMP  data8

data4:
	BTQ $2, R14
	JNC data2
	CRC32L (R13), R11
	ADDQ $4, R13

data2:
	BTQ $1, R14
	JNC data1
	CRC32W (R13), R11
	ADDQ $2, R13

data1:
	BTQ $0, R14
	JNC check
	CRC32B (R13), R11
	INCQ R13

check:
	MASK(R11)
	CMPL R11, (R13)             // the footer
	JNE  done
	LEAQ 16(BX)(R10*1), BX
	MOVL BX, (DI)(R9*4)
	INCQ R9
	JMP  record

done:
	MOVQ R9, ret+48(FP)
	RET
