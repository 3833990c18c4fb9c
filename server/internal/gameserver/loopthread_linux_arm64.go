package gameserver

const sysSchedSetattr, sysSchedGetattr = 274, 275
