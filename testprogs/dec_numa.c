/* NUMA memory policy calls (tests/decode_sys.rs, numa_matches_strace):
 * mbind, set_mempolicy, get_mempolicy, migrate_pages, move_pages with
 * masks, NULLs, mode flags, an unknown mode and an unreadable mask. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <unistd.h>
int main(void){
  unsigned long mask[2]={1,0}, out[16]={0}; int mode=-1;
  void *p = mmap(0,4096,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  syscall(SYS_mbind, p, 4096, 2 /*MPOL_BIND*/, mask, 2, 1 /*MPOL_MF_STRICT*/);
  syscall(SYS_mbind, p, 4096, 0, NULL, 0, 0);
  syscall(SYS_mbind, p, 4096, 2|(1<<15), mask, 65, 6);
  syscall(SYS_set_mempolicy, 1 /*PREFERRED*/, mask, 2);
  syscall(SYS_set_mempolicy, 0, NULL, 0);
  syscall(SYS_set_mempolicy, 99, mask, 2);
  syscall(SYS_get_mempolicy, &mode, out, 1024, NULL, 0);
  syscall(SYS_get_mempolicy, &mode, NULL, 0, p, 3);
  syscall(SYS_get_mempolicy, NULL, out, 64, NULL, 4);
  syscall(SYS_migrate_pages, 0, 2, mask, mask);
  void *pages[2]={p,(char*)p}; int nodes[2]={0,0}, st[2]={-1,-1};
  ((char*)p)[0]=1;
  syscall(SYS_move_pages, 0, 1, pages, NULL, st, 0);
  syscall(SYS_move_pages, 0, 1, pages, nodes, st, 2);
  syscall(SYS_mbind, p, 4096, 2, (void*)8, 2, 0);
  return 0;
}
