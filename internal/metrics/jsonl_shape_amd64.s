//go:build !purego

#include "textflag.h"

// func shapeScan(l []byte, i int, gaps []byte, offs []int32, terms []byte, pos []int32, k int) (int, int, bool)
TEXT ·shapeScan(SB), NOSPLIT, $0-153
	MOVQ l_base+0(FP), SI
	MOVQ i+24(FP), AX
	MOVQ gaps_base+32(FP), DI
	MOVQ offs_base+56(FP), R10
	MOVQ terms_base+80(FP), R11
	MOVQ pos_base+104(FP), R12
	MOVQ k+128(FP), CX
	// X8: '0' in each byte; X9: 9 (a digit is b-'0' <= 9, unsigned);
	// X10: '-'; X11: '.'.
	MOVQ $0x3030303030303030, BX
	MOVQ BX, X8
	PUNPCKLQDQ X8, X8
	MOVQ $0x0909090909090909, BX
	MOVQ BX, X9
	PUNPCKLQDQ X9, X9
	MOVQ $0x2d2d2d2d2d2d2d2d, BX
	MOVQ BX, X10
	PUNPCKLQDQ X10, X10
	MOVQ $0x2e2e2e2e2e2e2e2e, BX
	MOVQ BX, X11
	PUNPCKLQDQ X11, X11

number:
	CMPQ CX, terms_len+88(FP)
	JGE  done
	MOVLQSX (R10)(CX*4), BX  // gap k starts at gaps[BX]
	MOVLQSX 4(R10)(CX*4), DX
	SUBQ BX, DX              // and is DX bytes long
	LEAQ (AX)(DX*1), R14     // the number's start, j
	LEAQ 16(R14), R15
	CMPQ R15, l_cap+16(FP)
	JGT  differs
	CMPQ R14, l_len+8(FP)
	JGT  differs
	LEAQ (SI)(AX*1), R14     // the row at the gap
	ADDQ DI, BX              // the gap
	XORQ R15, R15            // bytes of it compared

gap:
	CMPQ R15, DX
	JGE  gapdone
	MOVOU (R14)(R15*1), X0
	MOVOU (BX)(R15*1), X1
	PCMPEQB X1, X0
	PMOVMSKB X0, R8
	XORL $0xffff, R8         // the bytes that differ
	JZ   gapnext
	BSFL R8, R8
	MOVQ DX, R9
	SUBQ R15, R9             // bytes of the gap left
	CMPQ R8, R9
	JLT  differs

gapnext:
	ADDQ $16, R15
	JMP  gap

gapdone:
	ADDQ DX, AX              // j
	ADDQ DX, R14
	MOVOU (R14), X0          // the 16 bytes from j
	MOVBLZX (R11)(CX*1), R8  // terms[k] in each byte of X1
	MOVQ R8, X1
	PUNPCKLBW X1, X1
	PSHUFLW $0, X1, X1
	PUNPCKLQDQ X1, X1
	PCMPEQB X0, X1
	PMOVMSKB X1, R8          // tm
	TESTL R8, R8
	JZ   other
	BSFL R8, R15             // the number's length
	TESTL R15, R15
	JZ   other
	LEAQ (AX)(R15*1), R9     // its end, e
	CMPQ R9, l_len+8(FP)
	JGE  other
	MOVL R8, R13
	SUBL $1, R13
	NOTL R8
	ANDL R8, R13             // v: the number's bytes
	MOVOU X0, X2
	PSUBB X8, X2
	MOVOU X2, X3
	PMINUB X9, X3
	PCMPEQB X2, X3
	PMOVMSKB X3, DX
	ANDL R13, DX             // dm: the number's digits
	MOVOU X0, X4
	PCMPEQB X10, X4
	PMOVMSKB X4, BX
	ANDL $1, BX              // s: a minus sign first
	MOVOU X0, X5
	PCMPEQB X11, X5
	PMOVMSKB X5, R8
	ANDL R13, R8             // pt: points
	MOVL DX, R14
	NOTL R14
	ANDL R13, R14            // the number's bytes that are no digits
	MOVL BX, R15
	ORL  R8, R15
	CMPL R14, R15            // are its sign and points
	JNE  other
	MOVL R8, R14
	SUBL $1, R14
	TESTL R8, R14            // one point at most
	JNZ  other
	ADDL $1, BX              // first: the bit of the first digit
	TESTL BX, DX             // a digit first, after the sign
	JZ   other
	TESTL R8, R8
	JZ   zero
	LEAL (R8)(R8*1), R14
	TESTL R13, R14           // and one after the point
	JZ   other

zero:
	MOVOU X0, X6
	PCMPEQB X8, X6
	PMOVMSKB X6, R14
	TESTL BX, R14            // a first digit 0
	JZ   store
	LEAL (BX)(BX*1), R14
	TESTL R13, R14           // ends the number
	JZ   store
	TESTL R8, R14            // or comes before the point
	JZ   other

store:
	MOVL AX, (R12)(CX*8)
	MOVL R9, 4(R12)(CX*8)
	MOVQ R9, AX
	INCQ CX
	JMP  number

other:
	MOVQ AX, ret+136(FP)
	MOVQ CX, ret1+144(FP)
	MOVB $1, ret2+152(FP)
	RET

differs:
	MOVQ AX, ret+136(FP)
	MOVQ CX, ret1+144(FP)
	MOVB $0, ret2+152(FP)
	RET

done:
	MOVQ AX, ret+136(FP)
	MOVQ CX, ret1+144(FP)
	MOVB $1, ret2+152(FP)
	RET
