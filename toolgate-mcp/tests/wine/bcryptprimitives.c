/* For the tests under Wine only (build.sh, windows_tests): Rust's std on
   Windows takes its random bytes from ProcessPrng in bcryptprimitives.dll,
   which Windows 10 and later have and Wine before 9 lacks. This stand-in
   gives the same bytes through RtlGenRandom (SystemFunction036, advapi32).
   It is never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
