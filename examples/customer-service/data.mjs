// The shop's records, shared by the three customer-service servers (orders, logistics, refunds).
export const ORDERS = {
  12345: {
    orderId: '12345',
    status: 'shipped',
    items: ['Wireless earbuds'],
    total: 59.9,
    trackingNumber: 'SF1001',
  },
  23456: {
    orderId: '23456',
    status: 'processing',
    items: ['Desk lamp', 'LED bulbs'],
    total: 34.5,
    trackingNumber: null,
  },
  34567: {
    orderId: '34567',
    status: 'delivered',
    items: ['Running shoes'],
    total: 89.0,
    trackingNumber: 'YT2002',
  },
};

export const SHIPMENTS = {
  SF1001: {
    trackingNumber: 'SF1001',
    carrier: 'SF Express',
    status: 'in transit',
    lastLocation: 'Hangzhou hub',
    eta: 'tomorrow',
  },
  YT2002: {
    trackingNumber: 'YT2002',
    carrier: 'YTO',
    status: 'delivered',
    lastLocation: 'front desk',
    eta: 'delivered',
  },
};
