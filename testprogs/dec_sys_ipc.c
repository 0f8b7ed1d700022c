/* System V message queues, semaphores and shared memory, and POSIX message
 * queues. Every object is private to this run and removed before exit. */
#include "dec_sys.h"
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <time.h>

static char perm_buf[256];

static const char *perm(const struct ipc_perm *p)
{
	snprintf(perm_buf, sizeof(perm_buf), "{uid=%u, gid=%u, mode=%#o, key=%d, cuid=%u, cgid=%u}",
		 p->uid, p->gid, p->mode & 0777, p->__key, p->cuid, p->cgid);
	return perm_buf;
}

int main(void)
{
	long rc;
	int err;

	CALL(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
	int q = rc;
	printf("msgget(IPC_PRIVATE, IPC_CREAT|0600) = %s\n", RET);
	if (q < 0)
		return 77;
	CALL(msgget(IPC_PRIVATE, 0));
	printf("msgget(IPC_PRIVATE, 000) = %s\n", RET);
	struct {
		long mtype;
		char mtext[16];
	} mb = { 7, "abcd" };
	CALL(msgsnd(q, &mb, 4, IPC_NOWAIT));
	printf("msgsnd(%d, {mtype=7, mtext=\"abcd\"}, 4, IPC_NOWAIT) = %s\n", q, RET);
	CALL(msgrcv(q, &mb, 4, 0, MSG_NOERROR | IPC_NOWAIT));
	printf("msgrcv(%d, {mtype=7, mtext=\"abcd\"}, 4, 0, MSG_NOERROR|IPC_NOWAIT) = %s\n", q, RET);
	CALL(msgrcv(q, &mb, 16, 3, IPC_NOWAIT | MSG_EXCEPT));
	printf("msgrcv(%d, %p, 16, 3, MSG_EXCEPT|IPC_NOWAIT) = %s\n", q, (void *)&mb, RET);
	struct msqid_ds md;
	CALL(msgctl(q, IPC_STAT, &md));
	printf("msgctl(%d, IPC_STAT, {msg_perm=%s, msg_stime=%lld, msg_rtime=%lld, msg_ctime=%lld, "
	       "msg_qnum=%lu, msg_qbytes=%lu, msg_lspid=%d, msg_lrpid=%d}) = %s\n",
	       q, perm(&md.msg_perm), (long long)md.msg_stime, (long long)md.msg_rtime,
	       (long long)md.msg_ctime, (unsigned long)md.msg_qnum, (unsigned long)md.msg_qbytes,
	       md.msg_lspid, md.msg_lrpid, RET);
	md.msg_qbytes = 1000;
	CALL(msgctl(q, IPC_SET, &md));
	printf("msgctl(%d, IPC_SET, {msg_perm={uid=%u, gid=%u, mode=%#o}, msg_qbytes=1000}) = %s\n", q,
	       md.msg_perm.uid, md.msg_perm.gid, md.msg_perm.mode & 0777, RET);
	CALL(msgctl(q, 99, NULL));
	printf("msgctl(%d, 0x63 /* MSG_??? */, NULL) = %s\n", q, RET);
	CALL(msgctl(q, IPC_RMID, NULL));
	printf("msgctl(%d, IPC_RMID, NULL) = %s\n", q, RET);

	CALL(semget(IPC_PRIVATE, 2, IPC_CREAT | IPC_EXCL | 0600));
	int s = rc;
	printf("semget(IPC_PRIVATE, 2, IPC_CREAT|IPC_EXCL|0600) = %s\n", RET);
	struct sembuf sb[2] = { { 0, 1, SEM_UNDO | IPC_NOWAIT }, { 1, 0, 0 } };
	CALL(syscall(SYS_semop, s, sb, 2));
	printf("semop(%d, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO|IPC_NOWAIT}, "
	       "{sem_num=1, sem_op=0, sem_flg=0}], 2) = %s\n", s, RET);
	struct timespec ts = { 1, 2 };
	sb[0].sem_op = -1;
	CALL(semtimedop(s, sb, 1, &ts));
	printf("semtimedop(%d, [{sem_num=0, sem_op=-1, sem_flg=SEM_UNDO|IPC_NOWAIT}], 1, "
	       "{tv_sec=1, tv_nsec=2}) = %s\n", s, RET);
	CALL(semctl(s, 0, GETVAL, NULL));
	printf("semctl(%d, 0, GETVAL, NULL) = %s\n", s, RET);
	CALL(semctl(s, 1, SETVAL, 5));
	printf("semctl(%d, 1, SETVAL, 0x5) = %s\n", s, RET);
	CALL(semctl(s, 0, IPC_RMID, NULL));
	printf("semctl(%d, 0, IPC_RMID, NULL) = %s\n", s, RET);

	CALL(shmget(IPC_PRIVATE, 4096, IPC_CREAT | SHM_NORESERVE | 0600));
	int sh = rc;
	printf("shmget(IPC_PRIVATE, 4096, IPC_CREAT|SHM_NORESERVE|0600) = %s\n", RET);
	CALL(shmget(IPC_PRIVATE, 2 << 20, IPC_CREAT | SHM_HUGETLB | (21 << 26) | 0600));
	printf("shmget(IPC_PRIVATE, 2097152, IPC_CREAT|SHM_HUGETLB|21<<SHM_HUGE_SHIFT|0600) = %s\n",
	       RET);
	void *p = shmat(sh, NULL, SHM_RDONLY);
	if (p == (void *)-1)
		return 1;
	printf("shmat(%d, NULL, SHM_RDONLY) = %p\n", sh, p);
	struct shmid_ds sd;
	CALL(shmctl(sh, IPC_STAT, &sd));
	printf("shmctl(%d, IPC_STAT, {shm_perm=%s, shm_segsz=%zu, shm_cpid=%d, shm_lpid=%d, "
	       "shm_nattch=%lu, shm_atime=%lld, shm_dtime=%lld, shm_ctime=%lld}) = %s\n",
	       sh, perm(&sd.shm_perm), sd.shm_segsz, sd.shm_cpid, sd.shm_lpid,
	       (unsigned long)sd.shm_nattch, (long long)sd.shm_atime, (long long)sd.shm_dtime,
	       (long long)sd.shm_ctime, RET);
	CALL(shmdt(p));
	printf("shmdt(%p) = %s\n", p, RET);
	CALL(shmctl(sh, IPC_SET, &sd));
	printf("shmctl(%d, IPC_SET, {shm_perm={uid=%u, gid=%u, mode=%#o}}) = %s\n", sh,
	       sd.shm_perm.uid, sd.shm_perm.gid, sd.shm_perm.mode & 0777, RET);
	CALL(shmctl(sh, IPC_RMID, NULL));
	printf("shmctl(%d, IPC_RMID, NULL) = %s\n", sh, RET);

	char name[64];
	snprintf(name, sizeof(name), "/rtrace-dec-mq-%d", getpid());
	struct mq_attr ma = { 0, 4, 16, 0 };
	CALL(mq_open(name, O_CREAT | O_RDWR | O_NONBLOCK, 0600, &ma));
	int mq = rc;
	printf("mq_open(\"%s\", O_RDWR|O_CREAT|O_NONBLOCK, 0600, {mq_flags=0, mq_maxmsg=4, "
	       "mq_msgsize=16, mq_curmsgs=0}) = %s\n", name + 1, RET);
	if (mq < 0)
		return 77;
	CALL(mq_open("/rtrace-dec-mq-none", O_RDONLY));
	printf("mq_open(\"rtrace-dec-mq-none\", O_RDONLY) = %s\n", RET);
	struct timespec at = { 0, 0 };
	CALL(mq_timedsend(mq, "hello", 5, 3, &at));
	printf("mq_timedsend(%d, \"hello\", 5, 3, {tv_sec=0, tv_nsec=0}) = %s\n", mq, RET);
	char buf[64];
	unsigned int prio;
	CALL(mq_receive(mq, buf, 16, &prio));
	printf("mq_timedreceive(%d, \"hello\", 16, [3], NULL) = %s\n", mq, RET);
	CALL(mq_receive(mq, buf, 16, &prio));
	printf("mq_timedreceive(%d, %p, 16, %p, NULL) = %s\n", mq, (void *)buf, (void *)&prio, RET);
	struct sigevent se = { 0 };
	se.sigev_notify = SIGEV_SIGNAL;
	se.sigev_signo = SIGUSR1;
	CALL(mq_notify(mq, &se));
	printf("mq_notify(%d, {sigev_signo=SIGUSR1, sigev_notify=SIGEV_SIGNAL}) = %s\n", mq, RET);
	CALL(mq_notify(mq, NULL));
	printf("mq_notify(%d, NULL) = %s\n", mq, RET);
	struct mq_attr old;
	CALL(mq_getattr(mq, &old));
	printf("mq_getsetattr(%d, NULL, {mq_flags=O_NONBLOCK, mq_maxmsg=4, mq_msgsize=16, "
	       "mq_curmsgs=0}) = %s\n", mq, RET);
	ma.mq_flags = 0;
	CALL(mq_setattr(mq, &ma, &old));
	printf("mq_getsetattr(%d, {mq_flags=0, mq_maxmsg=4, mq_msgsize=16, mq_curmsgs=0}, "
	       "{mq_flags=O_NONBLOCK, mq_maxmsg=4, mq_msgsize=16, mq_curmsgs=0}) = %s\n", mq, RET);
	CALL(mq_unlink(name));
	printf("mq_unlink(\"%s\") = %s\n", name + 1, RET);
	return 0;
}
